"""The plumbing every part of the plugin shares, none of it about what JAX does: declaring a
rule (``rule``) and its codes (``errorcodes``), reporting (``reporting``) with a fix
(``fixes``), the crash guard (``guard``), reading a call's arguments (``arguments``), the checked
module's imports and statements (``checked_module``, ``statements``), the walk of statements in
the order they run (``flow``), what a type admits (``types``), printing expressions back as
source (``source``), JAX's full names (``fullnames``) and the release the stubs describe
(``release``), lines on stderr (``stderr``), and every read of mypy beyond its plugin interface
(``mypy_internals``). Nothing here imports ``analyses/`` or ``rules/``."""

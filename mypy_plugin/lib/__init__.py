"""What the rules share: JAX's full names (``fullnames``), which receivers use JAX's own
``Array`` methods (``receivers``), what a type admits (``types``), printing expressions back
as source (``source``), where an updated array can go back (``places``), reading the checked
module's imports and statements (``checked_module``), making a report (``reporting``), the
crash guard (``guard``), the declaration of a rule (``rule``), and every read of mypy beyond
its plugin interface (``mypy_internals``)."""

"""The installation side: which JAX and stubs are installed (``installed``), what is wrong and
how to mend it (``diagnosis``, ``messages``), what the plugin does about it at start-up
(``startup``) and in mypy's report (``mismatch``), and which mypy releases it supports
(``compat``)."""

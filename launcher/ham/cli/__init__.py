"""The `ham` command line: one thin module per command group over the library."""

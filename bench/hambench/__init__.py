"""HAM benchmark suite (issue 5): HAM vs the local runner vs an ephemeral YARN cluster."""

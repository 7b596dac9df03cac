"""HAM: run Hadoop MapReduce jobs on Slurm allocations with a shared file system, no YARN."""

__version__ = "0.1.0"

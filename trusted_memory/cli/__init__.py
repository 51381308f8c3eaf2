"""The command-line entry points: the server, the admin CLI and the host hooks."""

from .threads import single_threaded_blas

# numpy reads its BLAS thread count once, when it is first imported, and every entry point's own
# imports reach numpy before its main() runs: so here, where the package is entered first.
single_threaded_blas()

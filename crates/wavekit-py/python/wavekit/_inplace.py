"""Arrays handed to the native half in place (ADR-0100): no ``bytes`` copy between."""


def host(a):
    """A C-contiguous array's (data address, bytes), read or written in place by the native
    half while the caller holds ``a`` (the native half's ``host`` and ``host_mut``)."""
    if not a.flags.c_contiguous:
        raise RuntimeError("wavekit: an array passed in place must be C-contiguous (a bug here)")
    return (a.__array_interface__["data"][0], a.nbytes)

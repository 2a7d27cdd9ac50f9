"""The device the tests run on, chosen before any call through the package's own
``wavekit.init``: the adapter WAVEKIT_ADAPTER names (the test command: lavapipe), or the best;
with WAVEKIT_NO_SUBGROUPS=1 the same adapter with subgroups off (the emulated one-lane
layer)."""

import os

import wavekit

_off = os.environ.get("WAVEKIT_NO_SUBGROUPS") == "1"
_info = wavekit.init(adapter=os.environ.get("WAVEKIT_ADAPTER") or None, disable_subgroups=_off)
print(_info)
if _off:
    assert "subgroups: false" in _info, _info

from typing import Any, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

class Encoder:
    width: int
    height: int
    budget: int
    def __init__(
        self,
        width: int,
        height: int,
        bpp: Optional[float] = ...,
        bytes: Optional[int] = ...,
        chroma: Optional[str] = ...,
        lossless: bool = ...,
        levels: int = ...,
    ) -> None: ...
    def encode(self, rgb: npt.ArrayLike) -> bytes: ...

class Decoder:
    def decode(self, data: bytes, report: bool = ...) -> Union[np.ndarray, Tuple[np.ndarray, dict[str, Any]]]: ...

def encode(
    rgb: npt.ArrayLike,
    bpp: Optional[float] = ...,
    bytes: Optional[int] = ...,
    chroma: Optional[str] = ...,
    lossless: bool = ...,
    levels: int = ...,
) -> bytes: ...
def decode(data: bytes, report: bool = ...) -> Union[np.ndarray, Tuple[np.ndarray, dict[str, Any]]]: ...

from typing import List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

Coeffs = List[Union[np.ndarray, Tuple[np.ndarray, np.ndarray, np.ndarray]]]

def wavelist() -> List[str]: ...
def dwt_max_level(shape: Sequence[int]) -> int: ...
def wavedec2(
    data: npt.ArrayLike,
    wavelet: str,
    mode: str = ...,
    level: Optional[int] = ...,
    axes: Tuple[int, int] = ...,
    color: Optional[str] = ...,
) -> Coeffs: ...
def waverec2(
    coeffs: Coeffs, wavelet: str, mode: str = ..., axes: Tuple[int, int] = ..., color: Optional[str] = ...
) -> np.ndarray: ...

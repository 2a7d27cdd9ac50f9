from typing import Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

class KDTree:
    data: np.ndarray
    n: int
    m: int
    leafsize: int
    boxsize: Optional[np.ndarray]
    def __init__(
        self,
        data: npt.ArrayLike,
        leafsize: int = ...,
        compact_nodes: bool = ...,
        copy_data: bool = ...,
        balanced_tree: bool = ...,
        boxsize: Optional[npt.ArrayLike] = ...,
    ) -> None: ...
    def query(
        self,
        x: npt.ArrayLike,
        k: Union[int, Sequence[int]] = ...,
        eps: float = ...,
        p: float = ...,
        distance_upper_bound: float = ...,
        workers: int = ...,
    ) -> Tuple[Union[float, np.ndarray], Union[int, np.ndarray]]: ...
    def query_ball_point(
        self,
        x: npt.ArrayLike,
        r: npt.ArrayLike,
        p: float = ...,
        eps: float = ...,
        workers: int = ...,
        return_sorted: Optional[bool] = ...,
        return_length: bool = ...,
    ) -> Union[list, np.ndarray, int]: ...
    def query_ball_point_csr(
        self, x: npt.ArrayLike, r: npt.ArrayLike
    ) -> Tuple[np.ndarray, np.ndarray]: ...

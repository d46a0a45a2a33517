"""Import torchao without its start-up noise.

torchao 0.18 tries to load CUDA-only extension libraries on import and logs a warning for
each ("Failed to load ... _C_mxfp8 ..."); torch's pytree module logs a deprecation warning
when torchao registers an Enum. Neither matters on a CPU-only front end, so the emitting
loggers are raised to ERROR for the duration of the import and restored afterwards.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

_NOISY_LOGGERS = ("torchao", "torch.utils._pytree")


@contextlib.contextmanager
def quiet_loggers(names: tuple[str, ...] = _NOISY_LOGGERS) -> Iterator[None]:
    """Raise the given loggers to ERROR inside the block; restore their levels after."""
    loggers = [logging.getLogger(n) for n in names]
    saved = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, level in zip(loggers, saved):
            lg.setLevel(level)


with quiet_loggers():
    import torchao  # noqa: F401  (the import is the point: it happens once, quietly)
    import torchao.quantization.pt2e.quantize_pt2e  # noqa: F401

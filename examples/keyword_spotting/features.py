"""MFCC features for keyword spotting, in numpy (no torchaudio, no scipy).

Parameters (those of "Hello Edge" / the MLPerf Tiny KWS benchmark):

  sample rate        16 kHz, clips of exactly 1 s (16,000 samples, float in [-1, 1])
  frame              40 ms = 640 samples, periodic Hann window, no padding at the ends
  stride             20 ms = 320 samples  ->  1 + (16000 - 640) / 320 = 49 frames
  FFT                1024 points (the 640 samples zero-padded), power spectrum |X|^2
  mel filterbank     40 triangular bands, 20 Hz .. 4000 Hz, HTK mel scale
                     (mel = 2595 log10(1 + f / 700)), unnormalised (peak 1)
  log                natural log of (mel energy + 1e-6)
  DCT                type II, orthonormal, coefficients 0..9 kept  ->  49 x 10

The model sees the MFCCs standardised per coefficient with the training set's mean and
standard deviation (see train.py, stored beside the weights in ds_cnn_kws.json); on a device
that is the feature front end's job, like the MFCCs themselves.
"""
from __future__ import annotations

import numpy as np

SAMPLE_RATE = 16_000
CLIP_SAMPLES = 16_000
FRAME = 640       # 40 ms
STRIDE = 320      # 20 ms
N_FFT = 1024
N_MELS = 40
F_MIN, F_MAX = 20.0, 4000.0
LOG_FLOOR = 1e-6
N_MFCC = 10
N_FRAMES = 1 + (CLIP_SAMPLES - FRAME) // STRIDE  # 49

PARAMS = {
    "sample_rate": SAMPLE_RATE, "clip_samples": CLIP_SAMPLES, "frame": FRAME, "stride": STRIDE,
    "window": "hann (periodic)", "n_fft": N_FFT, "n_mels": N_MELS, "f_min": F_MIN,
    "f_max": F_MAX, "mel_scale": "htk", "log_floor": LOG_FLOOR, "dct": "II, orthonormal",
    "n_mfcc": N_MFCC, "n_frames": N_FRAMES,
}


def _hz_to_mel(f):
    return 2595.0 * np.log10(1.0 + np.asarray(f, dtype=np.float64) / 700.0)


def _mel_to_hz(m):
    return 700.0 * (10.0 ** (np.asarray(m, dtype=np.float64) / 2595.0) - 1.0)


def mel_filterbank() -> np.ndarray:
    """(N_MELS, N_FFT // 2 + 1) triangular filters on the FFT bin frequencies."""
    edges = _mel_to_hz(np.linspace(_hz_to_mel(F_MIN), _hz_to_mel(F_MAX), N_MELS + 2))
    freqs = np.arange(N_FFT // 2 + 1) * SAMPLE_RATE / N_FFT
    lower, center, upper = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    rising = (freqs - lower) / (center - lower)
    falling = (upper - freqs) / (upper - center)
    return np.maximum(0.0, np.minimum(rising, falling))


def dct_matrix() -> np.ndarray:
    """(N_MFCC, N_MELS) orthonormal DCT-II rows 0..N_MFCC-1."""
    n = np.arange(N_MELS)
    k = np.arange(N_MFCC)[:, None]
    m = np.cos(np.pi * k * (2 * n + 1) / (2 * N_MELS)) * np.sqrt(2.0 / N_MELS)
    m[0] /= np.sqrt(2.0)
    return m


_WINDOW = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(FRAME) / FRAME)  # periodic Hann
_MEL = mel_filterbank()
_DCT = dct_matrix()


def mfcc(waves: np.ndarray, chunk: int = 256) -> np.ndarray:
    """MFCCs of 1-s clips: (..., 16000) -> (..., 49, 10) float32 (computed in float64)."""
    waves = np.asarray(waves, dtype=np.float64)
    if waves.shape[-1] != CLIP_SAMPLES:
        raise ValueError(f"clips must have {CLIP_SAMPLES} samples, got {waves.shape[-1]}")
    lead = waves.shape[:-1]
    flat = waves.reshape(-1, CLIP_SAMPLES)
    out = np.empty((flat.shape[0], N_FRAMES, N_MFCC), dtype=np.float32)
    for s in range(0, flat.shape[0], chunk):
        frames = np.lib.stride_tricks.sliding_window_view(flat[s:s + chunk], FRAME, axis=-1)
        frames = frames[:, ::STRIDE, :] * _WINDOW               # (n, 49, 640)
        power = np.abs(np.fft.rfft(frames, n=N_FFT)) ** 2       # (n, 49, 513)
        out[s:s + chunk] = np.log(power @ _MEL.T + LOG_FLOOR) @ _DCT.T
    return out.reshape(*lead, N_FRAMES, N_MFCC)

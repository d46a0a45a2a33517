"""A keyword-spotting data set built offline: espeak-ng speaks, sox makes the noise.

Classes: the 12 of Speech Commands' KWS task (the DS-CNN benchmark's layout)::

    silence, unknown, yes, no, up, down, left, right, on, off, stop, go

* **Voices.** An espeak-ng voice here is an English accent (``ACCENTS``, 8) combined with a
  voice variant (``espeak-ng --voices=variant``: 100 on espeak-ng 1.51, male, female,
  whispering, robotic, klatt-synthesised ...), e.g. ``en-gb-scotland+f3``. The split is by
  *variant*: a variant whose name hashes (crc32 % 5) to 0 is a test variant and is spoken in
  no accent in training, so no test voice is heard in training.
* **Utterances.** Every voice says each keyword once and two words drawn from
  ``UNKNOWN_WORDS`` (class "unknown"), each at a random speed (120..220 words per minute)
  and pitch (20..80 of espeak's 0..99). Silence clips: one per voice, noise only.
* **Clips.** espeak-ng's 22.05 kHz output is trimmed of leading/trailing silence,
  resampled to 16 kHz (band-limited, by FFT), scaled to a random peak (0.05..0.7) and
  placed at a random offset in a 1-s clip (cropped around its centre if longer).
* **Noise.** sox synthesises four 60-s noise tracks once (white, pink, brown noise, and
  mains hum over pink noise; ``sox -R`` makes them repeatable). Each clip gets a random 1-s
  segment of a random track at a random SNR of 5..25 dB (speech RMS over the spoken part);
  training draws segments from the first half of each track, test from the second half.
  Silence clips are noise at an RMS of 1e-3.5 .. 1e-1.5 (log-uniform).

Everything random is drawn from ``numpy.random.default_rng((SEED, split, voice, item))``:
a subset of voices (``select``) gives exactly the clips the full set has for them, and
two runs give identical data (espeak-ng and sox are deterministic; checked by hashing).
Features (features.py) are stored, not waveforms: data/kws_{train,test}.npz.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

try:
    from . import features
except ImportError:  # run as a script
    import features  # type: ignore[no-redef]

SEED = 8
HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

KEYWORDS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"]
LABELS = ["silence", "unknown", *KEYWORDS]
UNKNOWN_WORDS = ["bed", "bird", "cat", "dog", "happy", "house", "marvin", "sheila", "tree",
                 "wow", "zero", "one", "two", "three", "learn", "follow"]
ACCENTS = ["en-gb", "en-us", "en-gb-scotland", "en-gb-x-gbclan", "en-gb-x-rp",
           "en-gb-x-gbcwmd", "en-029", "en-us-nyc"]
SPLITS = {"train": 0, "test": 1}
UNKNOWN_PER_VOICE = 2
REPEATS = {"train": 1, "test": 1}  # renditions of the whole word list per voice
SPEED = (120, 220)   # espeak-ng -s, words per minute
PITCH = (20, 80)     # espeak-ng -p, 0..99
PEAK = (0.05, 0.7)
SNR_DB = (5.0, 25.0)
SILENCE_RMS_LOG10 = (-3.5, -1.5)
NOISES = {  # name -> sox synth effect chain (60 s at 16 kHz)
    "white": ["synth", "60", "whitenoise"],
    "pink": ["synth", "60", "pinknoise"],
    "brown": ["synth", "60", "brownnoise"],
    "hum": ["synth", "60", "pinknoise", "synth", "60", "sine", "mix", "120"],
}
NOISE_SECONDS = 60


def require_tools() -> None:
    missing = [t for t in ("espeak-ng", "sox") if shutil.which(t) is None]
    if missing:
        raise RuntimeError(f"{', '.join(missing)} not found: apt-get install espeak-ng sox")


def variants() -> list[str]:
    """espeak-ng's voice variants (file names under !v/), sorted; names with spaces dropped."""
    out = subprocess.run(["espeak-ng", "--voices=variant"], capture_output=True, text=True,
                         check=True).stdout.splitlines()[1:]
    names = []
    for line in out:
        tok = line.split()
        if len(tok) < 5 or not tok[4].startswith("!v/"):
            continue
        if len(tok) > 5 and not tok[5].startswith("("):
            continue  # a file name with a space ("Mr serious"): not addressable with -v
        names.append(tok[4][3:])
    return sorted(set(names))


def split_of(variant: str) -> str:
    return "test" if zlib.crc32(variant.encode()) % 5 == 0 else "train"


def voices(split: str) -> list[str]:
    """espeak-ng voice names of a split: accent+variant, variant-major order."""
    return [f"{a}+{v}" for v in variants() if split_of(v) == split for a in ACCENTS]


@dataclass(frozen=True)
class Utterance:
    label: int
    text: str          # "" for silence
    voice: str
    speed: int
    pitch: int
    seed: tuple[int, ...]


def plan(split: str, select: Sequence[int] | None = None) -> list[Utterance]:
    """Every clip of a split (or of the voices with indices ``select``), in a fixed order."""
    out = []
    names = voices(split)
    for vi in range(len(names)) if select is None else select:
        voice = names[vi]
        pick = np.random.default_rng((SEED, SPLITS[split], vi, 999))
        items = []
        for _ in range(REPEATS[split]):
            items += [(LABELS.index(w), w) for w in KEYWORDS]
            items += [(1, str(w)) for w in pick.choice(UNKNOWN_WORDS, UNKNOWN_PER_VOICE,
                                                       replace=False)]
            items.append((0, ""))
        for ii, (label, text) in enumerate(items):
            seed = (SEED, SPLITS[split], vi, ii)
            rng = np.random.default_rng(seed)
            out.append(Utterance(label, text, voice, int(rng.integers(SPEED[0], SPEED[1] + 1)),
                                 int(rng.integers(PITCH[0], PITCH[1] + 1)), seed))
    return out


def _wav_samples(data: bytes) -> np.ndarray:
    """int16 mono samples of a streamed WAV (espeak-ng --stdout leaves the sizes unset)."""
    pos = data.find(b"data")
    if data[:4] != b"RIFF" or pos < 0:
        raise RuntimeError("espeak-ng did not write a WAV stream")
    body = data[pos + 8:]
    return np.frombuffer(body[: len(body) // 2 * 2], dtype="<i2")


def speak(u: Utterance) -> np.ndarray:
    """espeak-ng's rendering of ``u`` at 22.05 kHz, float64 in [-1, 1]."""
    proc = subprocess.run(["espeak-ng", "-v", u.voice, "-s", str(u.speed), "-p", str(u.pitch),
                           "--stdout", u.text], capture_output=True, check=True)
    return _wav_samples(proc.stdout).astype(np.float64) / 32768.0


def resample_22050_to_16000(x: np.ndarray) -> np.ndarray:
    """Band-limited resampling by FFT; zero padding to a multiple of 441 makes the ratio
    320/441 exact and keeps the circular wrap-around in silence."""
    n = -(-(len(x) + 2048) // 441) * 441
    spec = np.fft.rfft(np.pad(x, (1024, n - len(x) - 1024)))
    m = n // 441 * 320
    y = np.fft.irfft(spec[: m // 2 + 1], n=m) * (m / n)
    start = 1024 * 320 // 441
    return y[start: start + len(x) * 320 // 441]


def trim(x: np.ndarray, rel: float = 0.02, margin: int = 160) -> np.ndarray:
    loud = np.flatnonzero(np.abs(x) > rel * np.max(np.abs(x)))
    if loud.size == 0:
        raise RuntimeError("espeak-ng produced silence")
    return x[max(0, loud[0] - margin): loud[-1] + 1 + margin]


def make_noises(folder: Path) -> dict[str, np.ndarray]:
    """The sox noise tracks (generated once into ``folder``), float64 in [-1, 1]."""
    folder.mkdir(parents=True, exist_ok=True)
    tracks = {}
    for name, chain in NOISES.items():
        path = folder / f"{name}.raw"
        if not path.exists():
            tmp = path.with_suffix(".tmp")
            subprocess.run(["sox", "-R", "-n", "-r", "16000", "-b", "16", "-c", "1", "-e",
                            "signed-integer", "-t", "raw", str(tmp), *chain], check=True)
            tmp.rename(path)
        tracks[name] = np.fromfile(path, dtype="<i2").astype(np.float64) / 32768.0
        if tracks[name].size != NOISE_SECONDS * features.SAMPLE_RATE:
            raise RuntimeError(f"{path}: unexpected length {tracks[name].size}")
    return tracks


def _noise_segment(tracks: dict[str, np.ndarray], split: str, rng: np.random.Generator):
    name = sorted(tracks)[int(rng.integers(len(tracks)))]
    half = tracks[name].size // 2
    lo = 0 if split == "train" else half
    start = lo + int(rng.integers(half - features.CLIP_SAMPLES))
    seg = tracks[name][start: start + features.CLIP_SAMPLES]
    return seg / max(np.sqrt(np.mean(seg ** 2)), 1e-12)  # unit RMS


def render(u: Utterance, split: str, tracks: dict[str, np.ndarray],
           speech: np.ndarray | None) -> np.ndarray:
    """The 1-s, 16-kHz clip of ``u`` (``speech``: espeak-ng's 22.05-kHz samples)."""
    rng = np.random.default_rng((*u.seed, 1))
    n = features.CLIP_SAMPLES
    noise = _noise_segment(tracks, split, rng)
    if speech is None:  # silence
        return np.clip(noise * 10.0 ** rng.uniform(*SILENCE_RMS_LOG10), -1.0, 1.0)
    word = resample_22050_to_16000(trim(speech))
    if word.size > n:
        cut = (word.size - n) // 2
        word = word[cut: cut + n]
    word *= rng.uniform(*PEAK) / np.max(np.abs(word))
    rms = np.sqrt(np.mean(word ** 2))
    clip = np.zeros(n)
    off = int(rng.integers(n - word.size + 1))
    clip[off: off + word.size] = word
    clip += noise * rms / 10.0 ** (rng.uniform(*SNR_DB) / 20.0)
    return np.clip(clip, -1.0, 1.0)


def build(split: str, select: Sequence[int] | None = None, workers: int = 2,
          data_dir: Path = DATA) -> dict[str, np.ndarray]:
    """Synthesise a split, or the voices ``select`` of it (indices into ``voices(split)``):
    {"x": (N, 49, 10) float32 MFCCs, "y": (N,) labels, "voice": (N,), "text": (N,)}."""
    require_tools()
    utts = plan(split, select)
    tracks = make_noises(data_dir / "noise")

    def one(u: Utterance) -> np.ndarray:
        return render(u, split, tracks, speak(u) if u.text else None)

    x = np.empty((len(utts), features.N_FRAMES, features.N_MFCC), np.float32)
    with ThreadPoolExecutor(max_workers=workers) as pool:  # espeak-ng runs in subprocesses
        for s in range(0, len(utts), 256):  # 256 clips at a time: memory stays small
            x[s:s + 256] = features.mfcc(np.stack(list(pool.map(one, utts[s:s + 256]))))
    return {"x": x, "y": np.array([u.label for u in utts]),
            "voice": np.array([u.voice for u in utts]),
            "text": np.array([u.text for u in utts])}


def load(split: str, data_dir: Path = DATA) -> dict[str, np.ndarray]:
    path = data_dir / f"kws_{split}.npz"
    if not path.exists():
        raise FileNotFoundError(f"{path} missing: run `python {Path(__file__).name}` first")
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DATA)
    ap.add_argument("--max-voices", type=int, default=None, help="first N voices per split")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for split in SPLITS:
        t0 = time.time()
        select = None if args.max_voices is None else range(args.max_voices)
        d = build(split, select, args.workers, args.out)
        np.savez_compressed(args.out / f"kws_{split}.npz", **d)
        counts = np.bincount(d["y"], minlength=len(LABELS))
        print(f"{split}: {len(d['y'])} clips, {len(set(d['voice']))} voices, per class "
              f"{dict(zip(LABELS, counts.tolist()))} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

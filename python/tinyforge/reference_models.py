"""The four MLPerf Tiny int8 reference models the tests and `make bench` use.

They are not in the repository (they are MLCommons' files). Where they are found, in order:

1. ``$TINYFORGE_MODELS_DIR`` (a folder holding the four ``.tflite`` files);
2. ``../shared/models/mlperf-tiny`` beside the source tree (``$TINYFORGE_SHARED`` overrides
   ``../shared``): the read-only copy this project's machines carry;
3. ``.models/mlperf-tiny`` in the source tree (git-ignored), filled by
   ``python -m tinyforge.reference_models fetch`` (``make models``; ``make test`` and
   ``make bench`` run it first) from ``$TINYFORGE_MODELS_MIRROR`` (a folder or a URL
   prefix) or else from the mlcommons/tiny repository at a pinned commit.

Every file is checked against its SHA-256 wherever it comes from; a wrong or partial file
is refused, never used.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import urllib.request
from pathlib import Path

from .errors import ErrorKind, TinyforgeError
from .paths import repo_root

# mlcommons/tiny, the commit ../shared/models/mlperf-tiny/README.md names.
COMMIT = "1afd2c9820f7"
UPSTREAM = f"https://github.com/mlcommons/tiny/raw/{COMMIT}/benchmark/training"

# name: (file, folder under benchmark/training/<task>/trained_models, SHA-256)
MODELS = {
    "kws": ("kws_ref_model.tflite", "keyword_spotting",
            "aeea436800704fce17b17292e4412630ad856e9d777c044c64ef748a880bd0ae"),
    "vww": ("vww_96_int8.tflite", "visual_wake_words",
            "597a384c8c2c8a1276f04702f25013b7838f2f814f1ca7c174d295b73e3d6b7b"),
    "ic": ("pretrainedResnet_quant.tflite", "image_classification",
           "3c002613d1b2475eb51dd78dfb85a546c8ae658dee71cf6ade43b022fe205415"),
    "ad": ("ad01_int8.tflite", "anomaly_detection",
           "87cf24194ef93d1d9b11a591d805526b98008e351655d29883c825c9c106ba24"),
}
MAX_BYTES = 16 << 20  # each file is well under 1 MB; a larger download is not the model

HOW_TO = ("run `make models` (downloads them from github.com/mlcommons/tiny), or set "
          "TINYFORGE_MODELS_MIRROR to a folder or URL holding them, or TINYFORGE_MODELS_DIR "
          "to a folder that has them")


class ModelsError(TinyforgeError):
    pass


def shared_dir() -> Path:
    """$TINYFORGE_SHARED, else ../shared beside the source tree (models, goldens, anchors)."""
    env = os.environ.get("TINYFORGE_SHARED")
    return Path(env) if env else repo_root().parent / "shared"


def cache_dir() -> Path:
    return repo_root() / ".models" / "mlperf-tiny"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def _complete(folder: Path) -> bool:
    return all((folder / f).is_file() for f, _, _ in MODELS.values())


def candidates() -> list[Path]:
    env = os.environ.get("TINYFORGE_MODELS_DIR")
    out = [Path(env)] if env else []
    return out + [shared_dir() / "models" / "mlperf-tiny", cache_dir()]


def models_dir() -> Path | None:
    """The first folder that has all four files, or None (checksums: `check`)."""
    for folder in candidates():
        if _complete(folder):
            return folder
    return None


def path(name: str) -> Path:
    """The verified-present file of model `name` (kws, vww, ic, ad); ModelsError if missing."""
    folder = models_dir()
    if folder is None:
        raise ModelsError(f"the MLPerf Tiny reference models are missing: {HOW_TO}",
                          ErrorKind.IO)
    return folder / MODELS[name][0]


def check(folder: Path) -> None:
    """Every file present with its checksum, else ModelsError naming the first that is not."""
    for file, _, sha in MODELS.values():
        p = folder / file
        if not p.is_file():
            raise ModelsError(f"{p}: missing; {HOW_TO}", ErrorKind.IO)
        got = _sha256(p)
        if got != sha:
            raise ModelsError(f"{p}: SHA-256 {got}, expected {sha} (not the MLCommons "
                              "file: delete it and fetch again)", ErrorKind.INVALID_INPUT)


def _source(file: str, task: str, mirror: str | None) -> str:
    if mirror:
        if "://" in mirror:
            return mirror.rstrip("/") + "/" + file
        return str(Path(mirror) / file)
    return f"{UPSTREAM}/{task}/trained_models/{file}"


def _copy(src: str, dest: Path) -> None:
    """src (a path or URL) -> dest, through a temporary file, at most MAX_BYTES."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=dest.parent, delete=False) as tmp:
        tmp_path = Path(tmp.name)
        try:
            if "://" in src:
                with urllib.request.urlopen(src, timeout=60) as r:  # noqa: S310 (pinned URL)
                    data = r.read(MAX_BYTES + 1)
            else:
                with open(src, "rb") as f:
                    data = f.read(MAX_BYTES + 1)
            if len(data) > MAX_BYTES:
                raise ModelsError(f"{src}: larger than {MAX_BYTES} bytes, not a reference "
                                  "model", ErrorKind.INVALID_INPUT)
            tmp.write(data)
        except OSError as e:
            tmp_path.unlink(missing_ok=True)
            raise ModelsError(f"{src}: {e}; {HOW_TO}", ErrorKind.IO) from None
        except BaseException:
            tmp_path.unlink(missing_ok=True)
            raise
    tmp_path.replace(dest)


def fetch(mirror: str | None = None, dest: Path | None = None) -> Path:
    """The folder with the four verified files: an existing complete one (checked), else
    `dest` (default .models/mlperf-tiny) filled from `mirror` / $TINYFORGE_MODELS_MIRROR /
    GitHub. A downloaded file with the wrong checksum is deleted and refused."""
    mirror = mirror if mirror is not None else os.environ.get("TINYFORGE_MODELS_MIRROR")
    if dest is None:
        found = models_dir()
        if found is not None:
            check(found)
            return found
        dest = cache_dir()
    for file, task, sha in MODELS.values():
        target = dest / file
        if target.is_file() and _sha256(target) == sha:
            continue
        src = _source(file, task, mirror)
        _copy(src, target)
        got = _sha256(target)
        if got != sha:
            target.unlink()
            raise ModelsError(f"{src}: SHA-256 {got}, expected {sha}; not stored",
                              ErrorKind.INVALID_INPUT)
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tinyforge.reference_models",
                                 description="Find, check or fetch the MLPerf Tiny reference "
                                             "models (tests/README.md).")
    ap.add_argument("command", choices=["fetch", "path", "check"])
    ap.add_argument("--mirror", help="folder or URL prefix holding the four files "
                                     "(default $TINYFORGE_MODELS_MIRROR, else GitHub)")
    args = ap.parse_args(argv)
    try:
        if args.command == "fetch":
            folder = fetch(args.mirror)
            print(f"models: {folder} (4 files, checksums match)")
        else:
            folder = models_dir()
            if folder is None:
                raise ModelsError(f"the MLPerf Tiny reference models are missing: {HOW_TO}",
                                  ErrorKind.IO)
            if args.command == "check":
                check(folder)
            print(folder)
    except TinyforgeError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())

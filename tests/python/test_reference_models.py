"""The MLPerf Tiny reference models' fetch step (python/tinyforge/reference_models.py):
found where they are, fetched from a mirror into a fresh folder with their checksums
checked, and a wrong file refused and not kept. The mirror is ../shared's copy, so this
runs without network; the GitHub source differs only in the URL."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tinyforge import reference_models as rm


@pytest.fixture(scope="module")
def source():
    folder = rm.models_dir()
    if folder is None:
        pytest.skip(f"MLPerf Tiny models missing: {rm.HOW_TO}")
    return folder


def test_found_where_the_tests_read_them(source):
    rm.check(source)
    assert rm.path("kws") == source / "kws_ref_model.tflite"


def test_fetch_from_a_mirror_folder_into_an_empty_one(source, tmp_path):
    dest = rm.fetch(mirror=str(source), dest=tmp_path / "models")
    assert sorted(p.name for p in dest.iterdir()) == sorted(f for f, _, _ in rm.MODELS.values())
    rm.check(dest)
    # Fetching again copies nothing: the files are there with the right checksums.
    stamp = {p.name: p.stat().st_mtime_ns for p in dest.iterdir()}
    rm.fetch(mirror=str(source), dest=dest)
    assert stamp == {p.name: p.stat().st_mtime_ns for p in dest.iterdir()}


def test_fetch_from_a_file_url(source, tmp_path):
    dest = rm.fetch(mirror=source.as_uri(), dest=tmp_path / "models")
    rm.check(dest)


def test_a_wrong_file_is_refused_and_not_kept(source, tmp_path):
    mirror = tmp_path / "mirror"
    shutil.copytree(source, mirror)
    bad = mirror / "ad01_int8.tflite"
    data = bytearray(bad.read_bytes())
    data[100] ^= 1
    bad.chmod(0o644)
    bad.write_bytes(bytes(data))
    dest = tmp_path / "models"
    with pytest.raises(rm.ModelsError, match="SHA-256") as e:
        rm.fetch(mirror=str(mirror), dest=dest)
    assert e.value.exit_code == 2
    assert not (dest / "ad01_int8.tflite").exists()


def test_missing_models_name_the_way_to_get_them(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "tinyforge.reference_models", "path"],
                          capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "TINYFORGE_SHARED": str(tmp_path),
                               "TINYFORGE_MODELS_DIR": str(tmp_path / "none")},
                          cwd=tmp_path)
    # .models/ of the source tree may hold a fetched copy on a developer's machine.
    if proc.returncode == 0:
        assert ".models" in proc.stdout
    else:
        assert "make models" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1

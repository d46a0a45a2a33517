"""Flash bytes of a firmware image by origin (runtime, kernels, constants, other), from
the GNU ld map file and the ELF's section headers."""
from __future__ import annotations

import re
import struct
import subprocess
from pathlib import Path

from .board_catalog import board as board_json

# ---- profile -----------------------------------------------------------------------------
FLASH_PARTS = ("runtime", "kernels", "constants", "other")


def _flash_part(source: str) -> str:
    base = source.replace("\\", "/")
    if "libtinyforge_runtime" in base:  # the core and the op glue (runtime_ops)
        # but the per-op tracer: linked for model_runner's `trace` mode, harness like printf
        return "other" if base.endswith("(trace.cc.obj)") else "runtime"
    if "libtinyforge_kernels" in base:
        return "kernels"
    if re.search(r"(^|/)model\.cc\.obj$", base):  # the generated model: program + weights
        return "constants"
    return "other"


# newlib's allocator: no firmware may link it (no heap; targets/README.md, "Writing firmware").
ALLOCATOR_SYMBOLS = ("malloc", "free", "calloc", "realloc", "_malloc_r", "_free_r",
                     "_calloc_r", "_realloc_r", "_sbrk", "_sbrk_r")


def allocator_symbols(elf: Path) -> list[str]:
    """The allocator functions defined or referenced in ELF (arm-none-eabi-nm): should be
    none."""
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    names = {line.split()[-1] for line in out.splitlines() if line.strip()}
    return sorted(names & set(ALLOCATOR_SYMBOLS))


def uncopied_ram_sections(elf: Path) -> list[str]:
    """Sections loaded into RAM from flash (VMA != LMA) that the startup's copy of
    [__tf_data_start, __tf_data_end) misses, so they would start as zeros: should be none.
    The kernels and runtime are position-independent; their GOT is such a section (an
    indirect call through it jumped to address 0 until targets/common/ld/tf_sections.ld
    copied it with .data)."""
    heads = subprocess.run(["arm-none-eabi-objdump", "-h", str(elf)], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    syms = {}
    for line in subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        f = line.split()
        if len(f) == 3:
            syms[f[2]] = int(f[0], 16)
    start, end = syms["__tf_data_start"], syms["__tf_data_end"]
    bad = []
    for i, line in enumerate(heads[:-1]):
        f = line.split()  # Idx Name Size VMA LMA File-off Align
        if len(f) == 7 and f[0].isdigit() and "LOAD" in heads[i + 1] and f[3] != f[4]:
            vma, size = int(f[3], 16), int(f[2], 16)
            if size and not (start <= vma and vma + size <= end):
                bad.append(f[1])
    return bad


def _loaded_sections(elf: Path) -> set[str]:
    """Names of the ELF's sections that occupy bytes in the image (SHF_ALLOC, not NOBITS)."""
    data = elf.read_bytes()
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x2E)
    heads = [struct.unpack_from("<IIIIII", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = heads[shstrndx][4]
    out = set()
    for name, kind, flags, _, _, _ in heads:
        if flags & 0x2 and kind != 8:  # SHF_ALLOC, not SHT_NOBITS
            end = data.index(b"\0", names_at + name)
            out.add(data[names_at + name:end].decode())
    return out


_MAP_ADDR = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)(?:\s+load address 0x([0-9a-f]+))?\s*$")
_MAP_OUT = re.compile(r"^(\S+)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)"
                      r"(?:\s+load address 0x([0-9a-f]+))?)?\s*$")
_MAP_IN = re.compile(r"^ (\S+)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*))?$")
_MAP_IN_CONT = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")


def flash_split(map_file: Path, board: str, elf: Path | None = None) -> dict:
    """Flash bytes by origin, from the GNU ld map: the input sections of every output section
    stored in the image (ELF: allocated, not NOBITS) whose load address is in a code or ROM
    region of the board, attributed to the object or archive member they come from; fill
    between them counts as `other`."""
    elf = elf or Path(str(map_file)[:-len(".map")])
    loaded = _loaded_sections(elf)
    flash = [(int(r["base"], 16), int(r["base"], 16) + r["size"])
             for r in board_json(board)["memory"] if r["purpose"] in ("code", "rom")]
    parts = {p: 0 for p in FLASH_PARTS}
    objects: dict[str, int] = {}
    text = map_file.read_text(errors="replace")
    start = text.find("Linker script and memory map")
    lines = text[start:].splitlines()[1:] if start >= 0 else []
    section, counted, pending = None, False, None

    def open_section(name: str, vma: int, lma: str | None) -> None:
        nonlocal counted
        addr = int(lma, 16) if lma else vma
        counted = name in loaded and any(lo <= addr < hi for lo, hi in flash)

    def add(source: str, size: int) -> None:
        parts[_flash_part(source)] += size
        member = re.sub(r"^.*/", "", source)
        objects[member] = objects.get(member, 0) + size

    for line in lines:
        if line.startswith("OUTPUT(") or line.startswith("LOAD ") or not line.strip():
            continue
        if not line.startswith(" "):  # an output section
            m = _MAP_OUT.match(line)
            section, counted, pending = (m.group(1) if m else None), False, None
            if m and m.group(2):
                open_section(section, int(m.group(2), 16), m.group(4))
            elif m:
                pending = ("out", section)
            continue
        if pending and pending[0] == "out":
            m = _MAP_ADDR.match(line)
            if m:
                open_section(pending[1], int(m.group(1), 16), m.group(3))
            pending = None
            continue
        if not counted:
            continue
        if line.startswith(" *fill*"):
            f = line.split()
            if len(f) >= 3:
                parts["other"] += int(f[2], 16)
            continue
        if pending and pending[0] == "in":
            m = _MAP_IN_CONT.match(line)
            pending = None
            if m:
                add(m.group(3).strip(), int(m.group(2), 16))
                continue
        m = _MAP_IN.match(line)
        if m and m.group(1).startswith(".") or (m and m.group(1) == "COMMON"):
            if m.group(2) is None:
                pending = ("in", m.group(1))
            elif not m.group(4).startswith("0x"):
                add(m.group(4).strip(), int(m.group(3), 16))
    total = sum(parts.values())
    return {**parts, "total": total,
            "top_objects": dict(sorted(objects.items(), key=lambda kv: -kv[1])[:12])}

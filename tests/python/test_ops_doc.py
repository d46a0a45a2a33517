"""docs/ops.md is what `python -m tinyforge.ops_doc` generates from the registries (the
PyTorch front end's op table and `tinyforge ops --json`): a new op, builtin or kernel
variant without a regenerated page fails here."""
from __future__ import annotations

from tinyforge import ops_doc


def test_ops_md_is_generated_from_the_registries():
    assert ops_doc.main(["--check"]) == 0, "run `python -m tinyforge.ops_doc`"


def test_every_handler_names_its_graph_ops():
    # The generator reads each handler's returned op name from its source; a handler it
    # cannot read would show up as "(see aten_ops....)" instead of an op.
    rows = ops_doc.pytorch_rows()
    assert rows and all("(see" not in ops for _, ops in rows), [r for r in rows if "(see" in r[1]]

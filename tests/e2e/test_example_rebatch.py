"""A batch-N rewrite of an example model gives each sample's batch-1 output bit for bit."""
from __future__ import annotations

import numpy as np

from example_checks import ON_BOARD, check, evaluation, one_torch_thread  # noqa: F401


def test_rebatch_is_exact(cli, tmp_path):
    """A batch-N rewrite of the graph gives each sample's batch-1 output bit for bit."""
    import torch
    import tinyforge
    from tinyforge import models

    torch.manual_seed(0)
    model, shape = models.get("ds_cnn")
    x = torch.randn((5,) + shape[1:])
    res = tinyforge.export(model, x[:1], calibration=[torch.randn((8,) + shape[1:])])
    batched = evaluation.run_host(cli, res.data, x.numpy(), batch=4, workdir=tmp_path)
    (tmp_path / "g.tfg").write_bytes(res.data)
    single = evaluation.run_host_each(cli, tmp_path / "g.tfg", x.numpy(), tmp_path)
    assert np.array_equal(batched, single)

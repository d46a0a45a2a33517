"""The Model Explorer extensions of tinyforge: `model-explorer --extensions=tinyforge.explorer`
(Model Explorer imports `<name>.main` and registers the Adapter and NodeDataProvider
subclasses defined here; the work is in graph.py).

- TinyforgeAdapter (id `tinyforge`): opens .tfg and .tflite files and compiled programs (the
  program.bin of a `tinyforge compile --target -o` directory; report.json beside it is what
  is read). Model Explorer picks an adapter by file extension and its own TFLite adapter also
  claims .tflite: choose "tinyforge" in its adapter selector, or use `tinyforge explore`,
  which names the adapter.
- TinyforgeProfile (id `tinyforge_profile`): overlays a `tinyforge profile --json` output on
  a compiled program: instructions, bytes and MACs per op ("Node data providers" in the side
  panel; the profile's path is asked for).
"""
from __future__ import annotations

from model_explorer import (Adapter, AdapterMetadata, GetConfigEditorsResult, NodeDataProvider,
                            NodeDataProviderFilter, NodeDataProviderMetadata,
                            NodeDataProviderResult)
from model_explorer.config_editor import TextInputConfigEditor

from ..errors import TinyforgeError
from .graph import graphs, node_data
from .model import ADAPTER_ID, load_model, read_profile


class TinyforgeAdapter(Adapter):
    metadata = AdapterMetadata(
        id=ADAPTER_ID, name="tinyforge",
        description="tinyforge graph files (.tfg, .tflite) and compiled programs (program.bin "
                    "of a `tinyforge compile --target -o` directory): ops, shapes, "
                    "quantization, kernels",
        fileExts=["tfg", "tflite", "bin"])

    def convert(self, model_path: str, settings: dict) -> dict:
        # A TinyforgeError becomes Model Explorer's error message in the page, one line.
        return graphs(load_model(model_path))


class TinyforgeProfile(NodeDataProvider):
    metadata = NodeDataProviderMetadata(
        id="tinyforge_profile", name="tinyforge profile",
        description="Per-op instructions, bytes and MACs from `tinyforge profile --json`",
        icon="timer", filter=NodeDataProviderFilter(adapterIds=[ADAPTER_ID]))

    def get_config_editors(self, provider_id: str) -> GetConfigEditorsResult:
        return GetConfigEditorsResult(configEditors=[TextInputConfigEditor(
            id="profile", label="profile JSON", required=True,
            description="`tinyforge profile MODEL --board B --json > prof.json` of this "
                        "compiled program")])

    def run(self, provider_id: str, model_path: str, graph_id: str, config_values: dict,
            graph=None) -> NodeDataProviderResult:
        try:
            model = load_model(model_path)
            profile = read_profile(config_values.get("profile", ""), model)
            return NodeDataProviderResult(result=node_data(model, profile))
        except TinyforgeError as e:
            return NodeDataProviderResult(error=str(e))

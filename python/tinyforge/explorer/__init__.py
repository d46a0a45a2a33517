"""tinyforge in Google's Model Explorer (`pip install tinyforge[explorer]`; docs/boards.md).

    tinyforge explore MODEL [--target BOARD] [--profile profile.json] [--port N]
    model-explorer --extensions=tinyforge.explorer MODEL

MODEL is a graph file (.tfg, .tflite: the graph `tinyforge inspect --json` reads) or a
directory `tinyforge compile --target -o` wrote (its report.json: the program's ops, the
kernel each runs, its bytes). Each op is a node (label: its type), each activation tensor an
edge; the side panel has the op's name, kernel, MACs, bytes and its tensors' shapes, dtypes
and quantization parameters. Overlays (Model Explorer's node data) colour the ops by MACs,
bytes, and, from a `tinyforge profile --json` output, instructions.

    model.py     the model and profile, from the existing readers (inspect --json, report.json)
    graph.py     them as Model Explorer graphs and node data (no server, testable)
    main.py      the extension classes Model Explorer loads (`--extensions=tinyforge.explorer`
                 imports tinyforge.explorer.main): the adapter and the profile overlay provider
    __main__.py  `tinyforge explore`: starts Model Explorer with both, the model and overlays

Only graph.py and main.py import Model Explorer (and with it torch): `tinyforge explore`
checks its input first, and says how to install Model Explorer when it is missing.
"""

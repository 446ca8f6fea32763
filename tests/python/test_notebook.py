"""docs/examples/getting_started.ipynb runs top to bottom (issue 48): executed here with
nbconvert's ExecutePreprocessor in a fresh kernel, so that the notebook a new user opens never
goes stale. Its cells print what they computed; the checks read those outputs."""
import os

import nbformat
from nbconvert.preprocessors import ExecutePreprocessor

from conftest import SOURCE_DIR


def test_the_getting_started_notebook_runs_top_to_bottom(tmp_path):
    path = SOURCE_DIR / "docs" / "examples" / "getting_started.ipynb"
    notebook = nbformat.read(path, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), \
        "the notebook is committed without outputs"
    os.environ["RBSIM_SCENES_DIR"] = str(SOURCE_DIR / "scenes")
    ExecutePreprocessor(timeout=300, kernel_name="python3").preprocess(notebook, {"metadata": {"path": str(tmp_path)}})
    printed = "".join(out.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                      for out in cell.get("outputs", []) if out.output_type == "stream")
    pictures = sum(1 for cell in notebook.cells if cell.cell_type == "code"
                   for out in cell.get("outputs", []) if out.output_type == "display_data" and "image/png" in out.data)
    assert "<rbsim.Result 1201 samples to 6 s" in printed and ", ok>" in printed
    assert "'ok': 6, 'diverged': 0, 'error': 0" in printed
    residual = float(printed.split("largest residual ")[1].split()[0])
    assert residual < 1e-9
    assert pictures == 2

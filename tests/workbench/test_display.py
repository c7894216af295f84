"""privnb.workbench.display: a figure is shown as an image under any matplotlib backend; a skipped section says why."""

import pytest
from matplotlib.figure import Figure

from privnb.workbench import show_figure, skipped


def test_show_figure_saves_and_shows_a_png_then_its_caption_under_any_backend(tmp_path, monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    fig = Figure()
    fig.subplots().plot([0, 1], [1, 0])
    assert show_figure(fig, "The line falls.", tmp_path / "line.png") is None
    image, caption = shown
    assert image.format == "png" and image.data.startswith(b"\x89PNG")
    assert caption._repr_markdown_() == "**Figure.** *The line falls.*"
    assert (tmp_path / "line.png").read_bytes().startswith(b"\x89PNG")


def test_skipped_names_the_section_and_the_reason():
    note = skipped("'ward' has no sensitive attribute; name one in the card", section="Anatomy")
    assert note._repr_markdown_() == "**Skipped.** *Anatomy: 'ward' has no sensitive attribute; name one in the card*"
    with pytest.raises(ValueError, match="say why"):
        skipped("  ")


def test_whole_numbers_stored_as_floats_read_as_integers_in_html_and_text():
    """Issue 31: the explorer showed a card's ages (floats once a missing value was read) as 34.0."""
    import numpy as np
    import pandas as pd

    from privnb.workbench import table

    frame = pd.DataFrame({"age": [34.0, 71.0, np.nan], "share": [0.25, 0.5, 0.125], "n": [1, 2, 3]})
    shown = table(frame, precision=1)
    text = repr(shown)
    assert "34" in text and "34.0" not in text and "71.0" not in text and "0.2" in text  # shares keep their decimal
    html = shown._repr_html_()
    assert ">34<" in html and ">34.0<" not in html

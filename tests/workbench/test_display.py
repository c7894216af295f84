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

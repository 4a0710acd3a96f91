"""The canvas: one paint function drawn as Pillow pixels and as an SVG document that places things alike."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from ice_envs.core import table_render as tr
from ice_envs.core.canvas import PillowCanvas, SvgCanvas, paint_rgb, paint_svg
from ice_envs.core.render import TEXT_PICTURE_SIZE, text_to_rgb, text_to_svg

SVG = "{http://www.w3.org/2000/svg}"


def _paint(c) -> None:
    c.rectangle((0, 0, 20, 10), fill=(1, 2, 3))
    c.rounded_rectangle((5, 5, 60, 40), radius=6, fill=(200, 10, 10), outline=(0, 0, 0), width=2)
    c.ellipse((70, 5, 90, 25), fill=(0, 255, 0))
    c.polygon([(10, 50), (30, 50), (20, 70)], fill=(0, 0, 255), outline=(9, 9, 9))
    c.line((0, 80, 100, 80), fill=(255, 255, 255), width=2)
    c.arc((40, 50, 80, 90), start=200, end=340, fill=(5, 5, 5), width=2)
    with c.group("p0-card-3"):
        c.text((10, 90), "a < b & c", fill=(250, 250, 250), font=tr.font(12))
    c.text((60, 100), "mid", fill=(250, 250, 250), font=tr.font(14, bold=True), anchor="mm")
    c.text((60, 110), "mono", fill=(250, 250, 250), font=tr.font(11, mono=True), anchor="lm")


def test_pillow_canvas_draws_what_imagedraw_draws():
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (120, 120), (7, 7, 7))
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, 20, 10), fill=(1, 2, 3))
    d.rounded_rectangle((5, 5, 60, 40), radius=6, fill=(200, 10, 10), outline=(0, 0, 0), width=2)
    d.ellipse((70, 5, 90, 25), fill=(0, 255, 0))
    d.polygon([(10, 50), (30, 50), (20, 70)], fill=(0, 0, 255), outline=(9, 9, 9))
    d.line((0, 80, 100, 80), fill=(255, 255, 255), width=2)
    d.arc((40, 50, 80, 90), start=200, end=340, fill=(5, 5, 5), width=2)
    d.text((10, 90), "a < b & c", fill=(250, 250, 250), font=tr.font(12))
    d.text((60, 100), "mid", fill=(250, 250, 250), font=tr.font(14, bold=True), anchor="mm")
    d.text((60, 110), "mono", fill=(250, 250, 250), font=tr.font(11, mono=True), anchor="lm")
    assert np.array_equal(paint_rgb((120, 120), (7, 7, 7), _paint), np.asarray(img))


def test_svg_canvas_writes_a_standalone_document_with_tagged_groups_and_escaped_text():
    text = paint_svg((120, 130), (7, 7, 7), _paint)
    root = ET.fromstring(text)
    assert root.tag == SVG + "svg"
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("120", "130", "0 0 120 130")
    texts = {t.text: t for t in root.iter(SVG + "text")}
    assert set(texts) == {"a < b & c", "mid", "mono"}
    assert texts["mid"].get("text-anchor") == "middle" and texts["mid"].get("font-weight") == "bold"
    assert texts["mono"].get("class") == "ice-mono" and texts["a < b & c"].get("class") == "ice-sans"
    groups = [g for g in root.iter(SVG + "g") if g.get("data-target")]
    assert [g.get("data-target") for g in groups] == ["p0-card-3"]
    assert [t.text for t in groups[0].iter(SVG + "text")] == ["a < b & c"]
    assert {e.tag.removeprefix(SVG) for e in root} >= {"rect", "ellipse", "polygon", "polyline", "path", "text"}


def test_svg_text_sits_on_the_baseline_pillow_uses_and_keeps_the_measured_width():
    fnt = tr.font(14, bold=True)
    ascent, descent = fnt.getmetrics()
    c = SvgCanvas(100, 100, (0, 0, 0))
    c.text((10, 20), "Wg", fill=(255, 255, 255), font=fnt)
    c.text((50, 50), "Wg", fill=(255, 255, 255), font=fnt, anchor="mm")
    top, mid = ET.fromstring(c.to_svg()).iter(SVG + "text")
    assert float(top.get("y")) == 20 + ascent
    assert float(mid.get("y")) == pytest.approx(50 + (ascent - descent) / 2, abs=0.01)
    assert float(top.get("textLength")) == pytest.approx(fnt.getlength("Wg"), abs=0.01)
    # measuring is the same on both canvases, so fitting and wrapping agree
    pillow = PillowCanvas(100, 100, (0, 0, 0))
    assert c.textbbox((3, 4), "Wg", font=fnt) == pillow.textbbox((3, 4), "Wg", font=fnt)
    assert tr.fit_text(c, "a long line of text", fnt, 60) == tr.fit_text(pillow, "a long line of text", fnt, 60)


def test_svg_canvas_refuses_an_anchor_it_cannot_place():
    c = SvgCanvas(10, 10, (0, 0, 0))
    with pytest.raises(ValueError, match="anchor 'lt'"):
        c.text((0, 0), "x", font=tr.font(12), anchor="lt")


def test_default_text_picture_has_an_svg_twin():
    text = "first line\n" + "word " * 60
    img = text_to_rgb(text, title="game_v0")
    root = ET.fromstring(text_to_svg(text, title="game_v0"))
    assert (int(root.get("width")), int(root.get("height"))) == TEXT_PICTURE_SIZE == (img.shape[1], img.shape[0])
    drawn = [t.text for t in root.iter(SVG + "text")]
    assert drawn[0] == "game_v0" and drawn[1] == "first line"
    assert "".join(drawn[2:]).replace(" ", "") == ("word" * 60)


def test_a_game_without_a_picture_of_its_own_gets_the_text_picture_in_both_outputs():
    import ice_envs
    from ice_envs.cardiceo.env import CardiceoEnv
    from ice_envs.core.aec import IceAECEnv
    from ice_envs.core.errors import OptionError

    class TextOnly(CardiceoEnv):
        _render_rgb = IceAECEnv._render_rgb
        _render_svg = IceAECEnv._render_svg
        _action_target = IceAECEnv._action_target

    env = TextOnly(num_players=2)
    env.reset(seed=0)
    img = env.render_view(0, "rgb_array")
    assert np.array_equal(img, text_to_rgb(env.render_view(0, "ansi"), title=env.metadata["name"]))
    root = ET.fromstring(env.render_view(0, "svg"))
    assert (int(root.get("width")), int(root.get("height"))) == (img.shape[1], img.shape[0])
    assert [t.text for t in root.iter(SVG + "text")][0] == env.metadata["name"]
    assert all(env.action_target(a) is None for a in env.legal_actions())
    with pytest.raises(OptionError, match="svg"):
        env.render_view(0, "pdf")
    assert ice_envs.make("cardiceo", num_players=2).metadata["render_modes"] == ["ansi", "rgb_array", "human"]


def test_remembered_text_boxes_are_pillows_and_hold_no_font_alive():
    """The canvas remembers each line's box and width per font: the same numbers as Pillow's at any ``xy`` (one
    line and several), and a font the caller drops is not kept alive by what was remembered for it."""
    import gc
    import weakref

    from PIL import Image, ImageDraw

    canvas = SvgCanvas(10, 10, (0, 0, 0))
    pillow = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    fnt = tr.font(13, bold=True)
    for xy in [(0, 0), (1.5, 2.25), (-3.1, 7.9), (100, 0.1)]:
        for text, anchor in [("Icebergs", None), ("12 pts", "mm"), ("two\nlines", None), ("", "ls")]:
            for _ in range(2):  # measured, then remembered
                assert canvas.textbbox(xy, text, font=fnt, anchor=anchor) == pillow.textbbox(
                    xy, text, font=fnt, anchor=anchor
                )
                assert canvas.textlength(text.split("\n")[0], fnt) == float(fnt.getlength(text.split("\n")[0]))
    dropped = fnt.font_variant(size=21)
    canvas.textbbox((1, 1), "label", font=dropped)
    ref = weakref.ref(dropped)
    del dropped
    gc.collect()
    assert ref() is None

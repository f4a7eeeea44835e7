"""The rating history as an SVG line: games.sparkline, pure."""

from xml.etree import ElementTree

from games.web.sparkline import points, sparkline

SVG = "{http://www.w3.org/2000/svg}"


def test_the_line_is_well_formed_svg_named_by_its_title_and_description():
    svg = ElementTree.fromstring(sparkline([1500, 1522.4, 1510], title="T", desc="D"))
    assert svg.get("role") == "img"
    assert svg.get("aria-labelledby") == "rating-title rating-desc"
    assert svg.find(f"{SVG}title").text == "T"
    assert svg.find(f"{SVG}title").get("id") == "rating-title"
    assert svg.find(f"{SVG}desc").text == "D"
    assert len(svg.find(f"{SVG}polyline").get("points").split()) == 3


def test_the_words_are_escaped():
    markup = sparkline([1, 2], title='<script>alert("x")</script>', desc="a & b", ident='"x')
    assert "<script>" not in markup
    assert "&lt;script&gt;" in markup and "a &amp; b" in markup
    assert ElementTree.fromstring(markup).find(f"{SVG}title").text == '<script>alert("x")</script>'


def test_the_highest_rating_is_at_the_top_and_the_lowest_at_the_bottom():
    assert points([1500, 1600, 1400], width=200, height=100, pad=0) == [
        (0.0, 50.0),
        (100.0, 0.0),
        (200.0, 100.0),
    ]


def test_one_rating_is_a_dot_and_none_is_an_empty_picture():
    assert "<circle" in sparkline([1500], title="T", desc="D")
    empty = ElementTree.fromstring(sparkline([], title="T", desc="D"))
    assert empty.find(f"{SVG}polyline") is None and empty.find(f"{SVG}circle") is None

"""mlsys.explorer: a grid computed at every point, its claims checked everywhere, and the
Markdown a cell shows (data the page script only looks up)."""
import json

import pytest

from bookcheck.verify.explorer_data import CLASS, DATA
from mlsys import (InvariantError, Setting, calc_failure_probability, calc_mtbf_cluster, explorer,
                   fmt, fmt_percent, hour, node)
from mlsys.explorers import MAX_DATA_BYTES

NODE_MTBF = 5_000 * hour


def cascade():
    return explorer("toy", [
        Setting("nodes", "Nodes", (100, 1_000, 10_000), default=1_000, show="{:,}".format),
        Setting("job", "Job length", (1 * hour, 24 * hour), default=24 * hour,
                show=lambda t: fmt(t, hour, precision=0) + " h"),
    ], compute=lambda nodes, job: {
        "Cluster MTBF": calc_mtbf_cluster(NODE_MTBF, nodes * node),
        "P(interrupted)": calc_failure_probability(calc_mtbf_cluster(NODE_MTBF, nodes * node), job)},
        show={"Cluster MTBF": lambda m: fmt(m, hour, figures=2) + " h",
              "P(interrupted)": lambda p: fmt_percent(p, precision=1, bounded=True)})


def test_every_point_is_computed_and_shown_as_a_reader_sets_it():
    toy = cascade()
    assert len(toy.points) == 6
    for (i, j), texts in toy.shown.items():
        nodes, job = (100, 1_000, 10_000)[i], (1, 24)[j]
        mtbf_h = 5_000 / nodes                             # independent: M_node / N
        p = 1 - 2.718281828459045 ** (-job / mtbf_h)
        assert toy.points[(i, j)]["Cluster MTBF"].m_as(hour) == pytest.approx(mtbf_h)
        assert texts == (fmt(mtbf_h * hour, hour, figures=2) + " h",
                         fmt_percent(p, precision=1, bounded=True))
    assert toy.default_point == (1, 1)
    assert toy.defaults["Cluster MTBF"].m_as(hour) == pytest.approx(5.0)
    assert toy.setting_text((2, 0)) == "Nodes = 10,000; Job length = 1 h"
    assert [o["Cluster MTBF"].m_as(hour) for o in toy.select(job=1 * hour)] == pytest.approx([50, 5, 0.5])


def test_a_claim_is_checked_at_every_point_and_names_the_first_failing_one():
    toy = cascade()
    toy.check_all(lambda s, out: out["Cluster MTBF"] <= NODE_MTBF, "a cluster fails more often than a node")
    with pytest.raises(InvariantError) as caught:
        toy.check_all(lambda s, out: out["P(interrupted)"] < 0.99, "a job usually survives")
    message = str(caught.value)
    assert message.startswith("a job usually survives: fails at 2 of 6 settings")
    assert "first at Nodes = 1,000; Job length = 24 h" in message
    with pytest.raises(TypeError, match="bool"):
        toy.check_all(lambda s, out: out["P(interrupted)"], "not a claim")


def test_the_default_must_be_one_of_the_values_and_keys_unique():
    with pytest.raises(ValueError, match="not one of its values"):
        Setting("nodes", "Nodes", (100, 1_000), default=500)
    with pytest.raises(ValueError, match="at least two values"):
        Setting("nodes", "Nodes", (100,), default=100)
    one = Setting("n", "N", (1, 2), default=1)
    with pytest.raises(ValueError, match="share a key"):
        explorer("x", [one, one], compute=lambda n: {"y": n}, show={"y": str})


def test_an_error_at_a_point_names_that_point():
    with pytest.raises(ValueError, match=r"^explorer 'x' at N = 0: "):
        explorer("x", [Setting("n", "N", (1, 0), default=1)],
                 compute=lambda n: {"M": calc_mtbf_cluster(NODE_MTBF, n * node)},
                 show={"M": lambda m: fmt(m, hour, figures=2)})
    with pytest.raises(ValueError, match="no show= formatter for M"):
        explorer("x", [Setting("n", "N", (1, 2), default=1)], compute=lambda n: {"M": n}, show={})


def test_the_markdown_holds_the_data_the_default_table_and_the_pdf_note():
    toy = cascade()
    markdown = toy._repr_markdown_()
    # the checker's protocol (bookcheck.verify.explorer_data): its div, its data script
    assert markdown.startswith(f"::: {{.{CLASS}}}\n") and markdown.endswith(":::\n")
    body = DATA.search(markdown).group(1)
    data = json.loads(body)
    assert data["explorer"] == "toy" and data["outputs"] == ["Cluster MTBF", "P(interrupted)"]
    assert data["settings"][0] == {"key": "nodes", "label": "Nodes", "shown": ["100", "1,000", "10,000"],
                                   "default": 1}
    assert data["grid"]["1,1"] == ["5.0 h", "99.2%"]
    assert "| Cluster MTBF | 5.0 h |" in markdown and "| Nodes | 1,000 |" in markdown
    assert "```{=typst}" in markdown and "HTML edition" in markdown
    # the page script is the package's, and no text closes its <script> early
    assert "mlsysExplorers" in markdown and markdown.count("</script>") == 2


def test_data_over_the_page_budget_is_refused():
    big = explorer("big", [Setting("i", "I", tuple(range(400)), default=0),
                           Setting("j", "J", tuple(range(20)), default=0)],
                   compute=lambda i, j: {"v": i * j}, show={"v": lambda v: f"{v:,} units"})
    with pytest.raises(ValueError, match=f"more than {MAX_DATA_BYTES:,}"):
        big._repr_markdown_()


def test_no_formula_in_the_page_script():
    """The page script looks values up: no arithmetic on them, no Math functions."""
    from mlsys.explorers import SCRIPT
    script = SCRIPT.read_text(encoding="utf-8")
    assert "Math." not in script and "parseFloat" not in script
    assert "data.grid[state.join(\",\")]" in script


def test_a_curve_is_drawn_from_coordinates_computed_for_each_setting():
    from mlsys import Curve
    from mlsys.explorer_curve import HEIGHT, MARGINS, WIDTH
    line = Curve(description="y = k x", x_label="x", y_label="y", x_range=(0, 10), y_range=(0, 100),
                 x_ticks=((0, "0"), (10, "10")), y_ticks=((0, "0"), (50, "50"), (100, "100")),
                 points=lambda k: [(x, k * x) for x in (0, 5, 10)], mark=lambda k: (5, 5 * k))
    toy = explorer("line", [Setting("k", "Slope", (5, 20), default=5)], compute=lambda k: {"k": k},
                   show={"k": str}, curve=line)
    data = toy.data()["curve"]
    plot_w, plot_h = WIDTH - MARGINS["left"] - MARGINS["right"], HEIGHT - MARGINS["top"] - MARGINS["bottom"]
    x = [MARGINS["left"] + share * plot_w for share in (0, 0.5, 1)]
    y = lambda value: MARGINS["top"] + (1 - value / 100) * plot_h    # noqa: E731
    assert data["paths"]["0"] == f"M{x[0]:.1f},{y(0):.1f}L{x[1]:.1f},{y(25):.1f}L{x[2]:.1f},{y(50):.1f}"
    # slope 20: the point at x = 10 (y = 200) is outside the frame and left out
    assert data["paths"]["1"] == f"M{x[0]:.1f},{y(0):.1f}L{x[1]:.1f},{y(100):.1f}"
    assert data["marks"]["1"] == [round(x[1], 1), round(y(100), 1)]
    assert [t for _, t in data["y_ticks"]] == ["0", "50", "100"]
    assert data["y_ticks"][1][0] == round(y(50), 1) and data["description"] == "y = k x"
    with pytest.raises(ValueError, match="outside the range: 20"):
        Curve(description="", x_label="", y_label="", x_range=(0, 10), y_range=(0, 1),
              x_ticks=((20, "20"),), y_ticks=(), points=lambda: [])


def test_a_log_axis_places_decades_evenly():
    from mlsys.explorer_curve import Curve, svg_path
    curve = Curve(description="", x_label="", y_label="", x_range=(1, 100), y_range=(0, 1), log_x=True,
                  x_ticks=(), y_ticks=(), points=lambda: [])
    xs = [float(part.split(",")[0][1:]) for part in svg_path(curve, [(1, 0), (10, 0), (100, 0)]).replace("L", " L").split()]
    assert xs[1] - xs[0] == pytest.approx(xs[2] - xs[1], abs=0.11)

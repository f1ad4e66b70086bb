"""Issue 37: the explorers on the real book's pages, in chromium.

Each control is moved through several settings (Home, End, arrow keys) and after every
move each shown value is compared with what `mlsys` computes for that setting here, in
the test process, from the constants (not from the page's data); keyboard-only
operation reaches every control and the reset; at 390 px the controls fit the column;
axe finds no serious problem in the explorers in either colour scheme."""
from __future__ import annotations

import json
from urllib.parse import urljoin

import pytest

from mlsys import (CLUSTER_1K_GPUS, CLUSTER_LARGE_GPUS, CLUSTER_MEDIUM_GPUS, CLUSTER_MEGA_GPUS,
                   CLUSTER_SMALL_GPUS, EXAMPLE_CHECKPOINT_COST_MIN, EXAMPLE_DETECT_MIN,
                   EXAMPLE_RECOVER_MIN, GPU_MTTF_HOURS, JOB_1_DAY_HOURS, JOB_1_WEEK_HOURS,
                   JOB_30_DAYS_HOURS, LLAMA3_INTERRUPTIONS_UNEXPECTED, LLAMA3_SNAPSHOT_DAYS,
                   NIC_MTTF_HOURS, NICS_PER_HOST, PSU_MTTF_HOURS, PSUS_PER_HOST,
                   REPLICA_AVAILABILITY, WORKED_EXAMPLE_GPUS, OutsideDomainError,
                   calc_annual_downtime, calc_availability_quorum, calc_daly_interval,
                   calc_exact_efficiency, calc_exact_optimal_interval, calc_expected_failures,
                   calc_failure_probability, calc_mtbf_cluster, calc_mtbf_node, calc_mtbf_observed,
                   calc_nines, calc_waste_fraction, calc_young_daly_interval, day, fmt,
                   fmt_duration, fmt_percent, gpu, hour, minute, node, second)

from .test_browser import browser  # noqa: F401  (fixture)
from .test_reader_browser import PHONE, WIDE, axe_script, site  # noqa: F401  (fixture)

pytestmark = [pytest.mark.needs_tool("chromium"), pytest.mark.slow]


# ------------------------------------------------- each explorer, computed here

def hours_or_minutes(duration):
    if duration.m_as(hour) >= 1:
        text, unit = fmt(duration, hour, figures=3), "hour"
    else:
        text, unit = fmt(duration, minute, figures=3), "minute"
    return f"{text} {unit}" if text == "1" else f"{text} {unit}s"


def cascade(n_gpus, per_node, gpu_mttf, job):
    node_mtbf = calc_mtbf_node(gpu_mttf, per_node * gpu, NIC_MTTF_HOURS * hour, NICS_PER_HOST,
                               PSU_MTTF_HOURS * hour, PSUS_PER_HOST)
    cluster = calc_mtbf_cluster(node_mtbf, n_gpus // per_node * node)
    return [fmt(node_mtbf, hour, figures=3) + " h", hours_or_minutes(cluster),
            fmt(calc_expected_failures(cluster, 1 * day), figures=2),
            fmt_percent(calc_failure_probability(cluster, job), precision=1, bounded=True)]


def checkpointing(delta, mtbf, downtime):
    outside = "outside its domain"
    try:
        young = calc_young_daly_interval(delta, mtbf)
    except OutsideDomainError:
        young = None
    try:
        waste = young and calc_waste_fraction(young, delta, mtbf, detect=downtime, recover=0 * minute)
    except OutsideDomainError:
        waste = None
    exact = calc_exact_optimal_interval(delta, mtbf)
    minutes = lambda t: fmt(t, minute, figures=2) + " min"   # noqa: E731
    return [outside if young is None else minutes(young), minutes(calc_daly_interval(delta, mtbf)),
            minutes(exact), outside if waste is None else fmt_percent(waste, precision=1),
            fmt_percent(calc_exact_efficiency(exact, delta, downtime, mtbf), precision=1)]


def availability_text(a):
    return fmt_percent(a, precision=max(0, round(calc_nines(a)) - 2))


def stacking(replicas, single, rule):
    system = calc_availability_quorum(single, replicas, 1 if rule == "any one" else replicas // 2 + 1)
    downtime = calc_annual_downtime(system)
    return [availability_text(system), fmt(calc_nines(system), figures=2),
            fmt_duration(downtime) if downtime >= 1 * second else fmt(downtime, second, figures=1) + " s"]


LLAMA_INTERVAL = calc_mtbf_observed(LLAMA3_SNAPSHOT_DAYS * day, LLAMA3_INTERRUPTIONS_UNEXPECTED).to(hour)
EXPLORERS = {   # name: (page, the settings' values in order, outputs computed here)
    "cascade": ("contents/appendix-foundations.html", [
        [CLUSTER_SMALL_GPUS, CLUSTER_1K_GPUS, CLUSTER_MEDIUM_GPUS, CLUSTER_LARGE_GPUS,
         WORKED_EXAMPLE_GPUS, CLUSTER_MEGA_GPUS],
        [4, 8], [m * hour for m in (25_000, 50_000, 100_000, 200_000)],
        [JOB_1_DAY_HOURS * hour, JOB_1_WEEK_HOURS * hour, JOB_30_DAYS_HOURS * hour]], cascade),
    "checkpointing": ("contents/failure-at-scale.html", [
        [t * second for t in (10, 30, 60, 120, 300)],
        [0.5 * hour, 1 * hour, LLAMA_INTERVAL, 6 * hour, 12 * hour],
        [t * minute for t in (1, 2, 5, 10)]], checkpointing),
    "stacking": ("contents/appendix-foundations.html", [
        [1, 2, 3, 4], [0.9, 0.95, REPLICA_AVAILABILITY, 0.999], ["any one", "a majority"]], stacking),
}
DEFAULTS = {"cascade": [WORKED_EXAMPLE_GPUS, 8, GPU_MTTF_HOURS * hour, JOB_1_DAY_HOURS * hour],
            "checkpointing": [EXAMPLE_CHECKPOINT_COST_MIN * minute, LLAMA_INTERVAL,
                              (EXAMPLE_DETECT_MIN + EXAMPLE_RECOVER_MIN) * minute],
            "stacking": [2, REPLICA_AVAILABILITY, "any one"]}


# ------------------------------------------------------------------ the page

SHOWN = """(name) => {
  const root = [...document.querySelectorAll('.bookcheck-explorer')].find(r =>
      JSON.parse(r.querySelector('script.bookcheck-explorer-data').textContent).explorer === name);
  const data = JSON.parse(root.querySelector('script.bookcheck-explorer-data').textContent);
  const rows = [...root.querySelectorAll('tbody tr')].map(r => [...r.cells].map(c => c.textContent.trim()));
  const n = data.settings.length;
  return {outputs: rows.slice(n).map(r => r[1]), settings: rows.slice(0, n).map(r => r[1]),
          rowLabels: rows.map(r => r[0].replace(/\u2019/g, "'")),
          dataLabels: [...data.settings.map(s => s.label), ...data.outputs],
          indices: [...root.querySelectorAll('input[type=range]')].map(i => Number(i.value)),
          valuetext: [...root.querySelectorAll('input[type=range]')].map(i => i.getAttribute('aria-valuetext')),
          labels: data.settings.map(s => s.label)};
}"""


def slider(page, name: str, i: int):
    """The i-th slider of explorer `name` (cascade and stacking share a page, in that order)."""
    root = page.locator(".bookcheck-explorer").nth(1 if name == "stacking" else 0)
    assert json.loads(root.locator("script.bookcheck-explorer-data").text_content())["explorer"] == name
    return root.locator("input[type=range]").nth(i)


def expect_state(page, name: str, state: list[int]):
    _, values, compute = EXPLORERS[name]
    shown = page.evaluate(SHOWN, name)
    point = [axis[i] for axis, i in zip(values, state)]
    assert shown["rowLabels"] == shown["dataLabels"]          # the default view's rows, in order
    assert shown["indices"] == state
    assert shown["outputs"] == compute(*point), (name, state)
    assert shown["valuetext"] == shown["settings"]


@pytest.mark.parametrize("name", list(EXPLORERS))
def test_each_control_moved_shows_what_mlsys_computes_for_that_setting(site, browser, name):  # noqa: F811
    _, base = site[0], site[2]
    page_rel, values, compute = EXPLORERS[name]
    context = browser.new_context(viewport={"width": WIDE, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(urljoin(base, page_rel))
    state = [axis.index(d) for axis, d in zip(values, DEFAULTS[name])]
    expect_state(page, name, state)                       # the default view: the book's values
    moves = 0
    for i, axis in enumerate(values):
        control = slider(page, name, i)
        control.focus()
        for key, to in (("Home", 0), ("ArrowRight", 1), ("End", len(axis) - 1),
                        ("ArrowLeft", len(axis) - 2)):
            page.keyboard.press(key)
            state[i] = to
            expect_state(page, name, state)
            moves += 1
    page.get_by_role("button", name="Reset to the book's values").nth(0 if name != "stacking" else 1).click()
    expect_state(page, name, [axis.index(d) for axis, d in zip(values, DEFAULTS[name])])
    context.close()
    assert errors == [] and moves == 4 * len(values)


def test_keyboard_alone_reaches_every_control_and_the_reset(site, browser):  # noqa: F811
    base = site[2]
    context = browser.new_context(viewport={"width": WIDE, "height": 900})
    page = context.new_page()
    page.goto(urljoin(base, "contents/failure-at-scale.html"))
    focused = []
    for _ in range(400):
        page.keyboard.press("Tab")
        where = page.evaluate("() => document.activeElement.closest('.bookcheck-explorer') ? "
                              "(document.activeElement.type || document.activeElement.tagName) : ''")
        if where:
            focused.append(where)
            if where == "button":
                break
    assert focused == ["range", "range", "range", "button"]
    # the slider before the button is D + R: move it, then reset with the keyboard
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("End")
    expect_state(page, "checkpointing", [2, 2, 3])
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect_state(page, "checkpointing", [2, 2, 1])
    labels = page.evaluate("() => [...document.querySelectorAll('.bookcheck-explorer input')].map("
                           "i => document.querySelector(`label[for='${i.id}']`).textContent)")
    assert [label.split(":")[0] for label in labels] == [
        "Checkpoint cost δ", "Interval between interruptions M", "Detection and recovery D + R"]
    assert page.evaluate("() => document.querySelector('.bookcheck-explorer table').getAttribute('aria-live')") == "polite"
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_explorers_work_offline_fit_a_phone_and_pass_axe_in_both_schemes(site, browser, scheme):  # noqa: F811
    book = site[1]                  # from file://, with every network request refused
    context = browser.new_context(viewport={"width": PHONE, "height": 844}, color_scheme=scheme)
    requested = []
    context.route("http*://**", lambda route: (requested.append(route.request.url), route.abort()))
    page = context.new_page()
    problems = []
    for rel in ("contents/failure-at-scale.html", "contents/appendix-foundations.html"):
        page.goto((book / rel).as_uri())
        problems += page.evaluate("""() => [...document.querySelectorAll('.bookcheck-explorer')].flatMap(r => {
            const f = r.querySelector('.mlsys-explorer-controls'), main = document.querySelector('main');
            const out = [];
            if (!f) return ['no controls'];
            if (f.getBoundingClientRect().right > main.getBoundingClientRect().right + 1
                || f.scrollWidth > f.clientWidth + 1) out.push('controls wider than the column');
            for (const i of r.querySelectorAll('input')) if (i.getBoundingClientRect().width < 200)
                out.push('a slider narrower than 200 px');
            return out; })""")
        page.add_script_tag(content=axe_script())
        found = page.evaluate("""async () => (await axe.run({include: [['.bookcheck-explorer']]},
                                  {resultTypes: ['violations']})).violations
                                  .filter(v => ['serious', 'critical'].includes(v.impact))
                                  .map(v => v.id + ': ' + v.nodes.length)""")
        problems += [f"{rel}: {v}" for v in found]
    context.close()
    assert problems == [] and requested == []


def test_the_checkpointing_curve_follows_the_settings_and_marks_the_exact_optimum(site, browser):  # noqa: F811
    """After each move the line is the grid's line for that setting, and its mark sits at
    the exact optimum mlsys computes here (placed on the frame's log axis by this test)."""
    import math

    from mlsys.explorer_curve import MARGINS, WIDTH
    base = site[2]
    _, values, _ = EXPLORERS["checkpointing"]
    context = browser.new_context(viewport={"width": WIDE, "height": 900})
    page = context.new_page()
    page.goto(urljoin(base, "contents/failure-at-scale.html"))
    root = page.locator(".bookcheck-explorer").first
    data = json.loads(root.locator("script.bookcheck-explorer-data").text_content())
    state = [axis.index(d) for axis, d in zip(values, DEFAULTS["checkpointing"])]
    plot_w = WIDTH - MARGINS["left"] - MARGINS["right"]
    checked = 0
    for i, key in ((0, "End"), (2, "End"), (1, "End"), (0, "Home"), (1, "Home")):
        slider(page, "checkpointing", i).focus()
        page.keyboard.press(key)
        state[i] = 0 if key == "Home" else len(values[i]) - 1
        drawn = page.evaluate("() => { const r = document.querySelector('.bookcheck-explorer');"
                              " const m = r.querySelector('.mlsys-explorer-mark');"
                              " return [r.querySelector('.mlsys-explorer-line').getAttribute('d'),"
                              " Number(m.getAttribute('cx'))]; }")
        point = ",".join(map(str, state))
        assert drawn[0] == data["curve"]["paths"][point] and drawn[0].count("L") > 10
        delta, mtbf = values[0][state[0]], values[1][state[1]]
        optimum_min = calc_exact_optimal_interval(delta, mtbf).m_as(minute)
        expected_x = MARGINS["left"] + math.log(optimum_min) / math.log(300) * plot_w
        assert drawn[1] == pytest.approx(expected_x, abs=0.06), (point, optimum_min)
        checked += 1
    assert page.locator(".mlsys-explorer-curve").get_attribute("role") == "img"
    # the costliest checkpoint at the shortest M: every interval is off the scale, and
    # the drawing says so instead of showing an empty frame
    assert page.locator(".mlsys-explorer-off-scale").text_content() == ""
    slider(page, "checkpointing", 0).focus()
    page.keyboard.press("End")
    assert data["curve"]["paths"]["4,0,3"] == ""
    assert page.locator(".mlsys-explorer-off-scale").text_content() == data["curve"]["off_scale"]
    assert "more than 60%" in data["curve"]["off_scale"]
    context.close()
    assert checked == 5

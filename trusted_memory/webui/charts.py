"""Chart geometry for server-rendered SVG: numbers in, shapes out; the template draws them.

No charting library and no script: a chart is a list of rectangles or points with their labels,
so its text is escaped by the template like any other text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

WIDTH = 640
HEIGHT = 180
PAD_LEFT = 44
PAD_BOTTOM = 22
PAD_TOP = 10
BAR_ROW = 22
LABEL_W = 150


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar: position, size, its label and value."""

    x: float
    y: float
    w: float
    h: float
    label: str
    value: int


@dataclass(frozen=True, slots=True)
class Chart:
    """A drawable chart: bars or a polyline, axis ticks, its size."""

    width: int
    height: int
    bars: tuple[Bar, ...] = ()
    points: str = ""
    ticks: tuple[tuple[float, str], ...] = ()  # (y, label) on the value axis
    xlabels: tuple[tuple[float, str], ...] = ()  # (x, label) under the plot
    empty: bool = False


def _nice_max(value: int) -> int:
    if value <= 5:
        return max(value, 1)
    step: int = 10 ** (len(str(value)) - 1)
    return ((value + step - 1) // step) * step


def _day_label(day: int) -> str:
    return datetime.fromtimestamp(day * 86400, UTC).strftime("%m-%d")


def _value_ticks(top: int, plot_h: float) -> tuple[tuple[float, str], ...]:
    return tuple((PAD_TOP + plot_h - plot_h * f, f"{round(top * f):,}") for f in (0.0, 0.5, 1.0))


def daily_bars(series: Sequence[tuple[int, int]]) -> Chart:
    """Vertical bars, one per day: (day number since the epoch, count)."""
    if not series:
        return Chart(WIDTH, HEIGHT, empty=True)
    top = _nice_max(max(c for _, c in series))
    plot_w, plot_h = WIDTH - PAD_LEFT - 6, HEIGHT - PAD_TOP - PAD_BOTTOM
    step = plot_w / len(series)
    bars = []
    for i, (day, count) in enumerate(series):
        h = plot_h * count / top
        bars.append(Bar(PAD_LEFT + i * step + 1, PAD_TOP + plot_h - h, max(step - 2, 1), h, _day_label(day), count))
    every = max(1, len(series) // 6)
    xlabels = tuple((b.x + b.w / 2, b.label) for i, b in enumerate(bars) if i % every == 0)
    return Chart(
        WIDTH,
        HEIGHT,
        bars=tuple(bars),
        ticks=_value_ticks(top, plot_h),
        xlabels=xlabels,
        empty=not any(c for _, c in series),
    )


def line(series: Sequence[tuple[int, int]]) -> Chart:
    """A line over days: (day number, value)."""
    if not series:
        return Chart(WIDTH, HEIGHT, empty=True)
    top = _nice_max(max(c for _, c in series))
    plot_w, plot_h = WIDTH - PAD_LEFT - 6, HEIGHT - PAD_TOP - PAD_BOTTOM
    step = plot_w / max(len(series) - 1, 1)
    pts = [(PAD_LEFT + i * step, PAD_TOP + plot_h - plot_h * c / top) for i, (_, c) in enumerate(series)]
    every = max(1, len(series) // 6)
    xlabels = tuple((pts[i][0], _day_label(d)) for i, (d, _) in enumerate(series) if i % every == 0)
    return Chart(
        WIDTH,
        HEIGHT,
        points=" ".join(f"{x:.1f},{y:.1f}" for x, y in pts),
        ticks=_value_ticks(top, plot_h),
        xlabels=xlabels,
        empty=not any(c for _, c in series),
    )


def horizontal_bars(counts: Mapping[str, int], *, limit: int = 12) -> Chart:
    """Labelled horizontal bars, largest first (at most `limit` rows)."""
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    if not items:
        return Chart(WIDTH, BAR_ROW * 2, empty=True)
    top = max(v for _, v in items) or 1
    plot_w = WIDTH - LABEL_W - 70
    bars = tuple(
        Bar(LABEL_W, i * BAR_ROW + 3, max(plot_w * v / top, 1), BAR_ROW - 6, k, v) for i, (k, v) in enumerate(items)
    )
    return Chart(WIDTH, BAR_ROW * len(items) + 4, bars=bars)


def gauge(used: int, cap: int) -> Chart:
    """One bar of `used` against `cap` (the store against max_size_mb)."""
    frac = min(used / cap, 1.0) if cap > 0 else 0.0
    return Chart(WIDTH, 34, bars=(Bar(0, 4, WIDTH * frac, 26, f"{frac:.0%}", used),))

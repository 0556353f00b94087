// The HTML report's shared script (npusim report, docs/html-report.md): the
// page's state for tests (window.npusimReport, also written as JSON into
// #npusim-report-state), the embedded data, number formats, sortable tables.
'use strict';
const npusim = (function () {
  const state = { kind: null, ready: false, errors: [] };
  window.npusimReport = state;
  window.addEventListener('error', (e) => state.errors.push(String(e.message)));
  const consoleError = console.error.bind(console);
  console.error = function (...args) {
    state.errors.push(args.map(String).join(' '));
    consoleError(...args);
  };
  Chart.defaults.animation = false;  // drawn at once: screenshots and tests see the final page
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  Chart.defaults.color = '#33404f';

  function publish() {
    document.getElementById('npusim-report-state').textContent = JSON.stringify(state);
  }

  function data() {
    return JSON.parse(document.getElementById('npusim-data').textContent);
  }

  // "#select=3,7&hover=2" -> {select: [3, 7], hover: [2]}.
  function hashOptions() {
    const out = {};
    for (const part of window.location.hash.replace(/^#/, '').split('&')) {
      const [key, value] = part.split('=');
      if (!key || value === undefined) continue;
      out[key] = value.split(',').filter((v) => v !== '').map(Number).filter(Number.isInteger);
    }
    return out;
  }

  // 1811998 -> "1811998", 0.0123456 -> "0.01235", 5658.3157 -> "5658.3".
  function fmt(v) {
    if (v === null || v === undefined) return '-';
    if (typeof v !== 'number') return String(v);
    if (Number.isInteger(v)) return String(v);
    const a = Math.abs(v);
    if (a >= 1000) return v.toFixed(1);
    return String(Number(v.toPrecision(4)));
  }

  // 2.5e6 -> "2.5M" for axis ticks.
  function short(v) {
    const a = Math.abs(v);
    for (const [unit, size] of [['G', 1e9], ['M', 1e6], ['k', 1e3]])
      if (a >= size) return String(Number((v / size).toPrecision(3))) + unit;
    return String(Number(v.toPrecision(3)));
  }

  // Tick labels for an axis of `type`: on a logarithmic one only at 1, 2 and 5
  // times a power of ten (its edges and the other ticks stay unlabelled).
  function tickLabel(type) {
    if (type !== 'logarithmic') return (v) => short(v);
    return (v) => {
      if (v <= 0) return '';
      const m = v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9));
      return [1, 2, 5].some((k) => Math.abs(m - k) < 1e-6) ? short(v) : '';
    };
  }

  // The axis type tools/plot_sweep picks: logarithmic when every value is positive
  // and they span a factor of 8 or more.
  function axisType(values) {
    const v = values.filter((x) => typeof x === 'number');
    if (v.length === 0 || v.length !== values.length || Math.min(...v) <= 0) return 'linear';
    return Math.max(...v) / Math.min(...v) >= 8 ? 'logarithmic' : 'linear';
  }

  function median(values) {
    const s = values.slice().sort((a, b) => a - b);
    const m = Math.floor(s.length / 2);
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  }

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // Click a header to sort by its column (numbers when the header has class
  // "num"), again to reverse; rows of equal value keep their order.
  function makeSortable(table) {
    const headers = Array.from(table.tHead.rows[0].cells);
    headers.forEach((th, column) => {
      th.addEventListener('click', () => {
        const ascending = !th.classList.contains('sorted-asc');
        headers.forEach((h) => h.classList.remove('sorted-asc', 'sorted-desc'));
        th.classList.add(ascending ? 'sorted-asc' : 'sorted-desc');
        const numeric = th.classList.contains('num');
        const body = table.tBodies[0];
        const rows = Array.from(body.rows).map((row, i) => ({ row, i }));
        const key = (r) => {
          const text = r.row.cells[column].textContent.trim();
          if (!numeric) return text;
          const v = parseFloat(text);
          return Number.isNaN(v) ? -Infinity : v;
        };
        rows.sort((a, b) => {
          const ka = key(a), kb = key(b);
          const c = numeric ? ka - kb : String(ka).localeCompare(String(kb), undefined,
                                                                  { numeric: true });
          return (ascending ? c : -c) || a.i - b.i;
        });
        for (const r of rows) body.appendChild(r.row);
        state.sorted = { column: th.textContent, ascending };
        publish();
      });
    });
  }

  // How many marks Chart.js drew for the datasets flagged `marks: true`.
  function countMarks(chart) {
    let n = 0;
    chart.data.datasets.forEach((ds, i) => {
      if (ds.marks) n += chart.getDatasetMeta(i).data.length;
    });
    return n;
  }

  // A plugin that writes text labels at data coordinates: options.plugins.labels.items
  // = [{x, y, text, align, dx, dy, rotate (to the line to (x2, y2)), colour}].
  const labelPlugin = {
    id: 'labels',
    afterDatasetsDraw(chart, _args, options) {
      const ctx = chart.ctx;
      const xs = chart.scales.x, ys = chart.scales.y;
      ctx.save();
      ctx.font = '12px ' + Chart.defaults.font.family;
      for (const item of options.items || []) {
        const px = xs.getPixelForValue(item.x), py = ys.getPixelForValue(item.y);
        ctx.save();
        ctx.translate(px + (item.dx || 0), py + (item.dy || 0));
        if (item.x2 !== undefined) {
          const angle = Math.atan2(ys.getPixelForValue(item.y2) - py,
                                   xs.getPixelForValue(item.x2) - px);
          ctx.rotate(angle);
        } else if (item.vertical) {  // upwards, to the right of the point
          ctx.rotate(-Math.PI / 2);
        }
        ctx.fillStyle = item.colour || '#222';
        ctx.textAlign = item.align || 'left';
        ctx.textBaseline = item.vertical ? 'top' : 'bottom';
        ctx.fillText(item.text, item.vertical ? 4 : 0, item.vertical ? 4 : -3);
        ctx.restore();
      }
      ctx.restore();
    },
  };

  return { state, publish, data, hashOptions, fmt, short, tickLabel, axisType, median, el, makeSortable,
           countMarks, labelPlugin };
})();

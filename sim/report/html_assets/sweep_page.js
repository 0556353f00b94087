// The sweep page (npusim report SWEEP_DIR, docs/html-report.md#a-sweep): the
// Pareto scatter of the first two objectives (hover a mark for its point, click
// two to compare them as `npusim diff` compares runs) and one sensitivity plot
// per varied parameter, as tools/plot_sweep draws them.
(function () {
  const d = npusim.data();
  const state = npusim.state;
  state.kind = 'sweep';
  const columns = d.parameters.concat(d.metrics);
  const at = (p, name) => p.values[columns.indexOf(name)];
  const points = d.points.map((p, i) => Object.assign({ number: i }, p));
  const ok = points.filter((p) => p.status === 'ok');
  state.points = points.length;
  state.finished = ok.length;
  state.front = ok.filter((p) => p.front).length;

  const objectives = d.objectives.map((o) => o.metric);
  const goals = {};
  for (const o of d.objectives) goals[o.metric] = o.goal;
  const x = objectives[0];
  const y = objectives.length > 1 ? objectives[1] : (x === 'cycles' ? 'energy_uj' : 'cycles');
  const axisTitle = (m) => m + (goals[m] === 'max' ? ' (higher is better)' : '');
  // Only the parameters that vary among the finished points tell points apart.
  const varied = d.parameters.filter((p) => new Set(ok.map((q) => String(at(q, p)))).size > 1);
  const shown = varied.length ? varied : d.parameters;
  const describe = (p) => shown.map((name) => name + '=' + npusim.fmt(at(p, name))).join(' ');

  // ---------------------------------------------------------------- Pareto
  const COLOURS = ['#1f77b4', '#ff7f0e'];  // the first and second selected point
  let selected = [];
  const radius = (ctx) => (selected.includes(ctx.raw && ctx.raw.point.number) ? 9 : 5);
  const border = (ctx) => {
    const k = selected.indexOf(ctx.raw && ctx.raw.point.number);
    return k >= 0 ? COLOURS[k] : ctx.dataset.edge;
  };
  const width = (ctx) => (selected.includes(ctx.raw && ctx.raw.point.number) ? 3.5 : 1.2);
  const mark = (p) => ({ x: at(p, x), y: at(p, y), point: p });
  const rest = ok.filter((p) => !p.front).map(mark);
  const front = ok.filter((p) => p.front).map(mark).sort((a, b) => a.x - b.x || a.y - b.y);
  const joined = objectives.length === 2;
  const datasets = [
    { label: 'finished points (' + rest.length + ')', data: rest, marks: true, edge: '#5d6b7e',
      backgroundColor: '#9aa7b8', borderColor: border, borderWidth: width, pointRadius: radius,
      pointHoverRadius: 9 },
    { label: (joined ? 'Pareto front (' : 'Pareto-optimal over ' + objectives.join(', ') + ' (') +
             front.length + (joined ? ')' : ', projected)'),
      data: front, marks: true, edge: '#d62728', backgroundColor: 'rgba(214, 39, 40, 0.55)',
      borderColor: border, borderWidth: width, pointRadius: radius, pointHoverRadius: 9 },
  ];
  if (joined && front.length > 1)
    datasets.push({ type: 'line', label: 'front line', data: front.map((m) => ({ x: m.x, y: m.y })),
                    borderColor: '#d62728', borderWidth: 1.5, pointRadius: 0, pointHitRadius: 0 });
  const tooltipLines = (p) => {
    const lines = d.parameters.map((name) => name + ' = ' + npusim.fmt(at(p, name)));
    const figures = objectives.concat(['cycles', 'time_us', 'energy_uj', 'area_mm2', 'dram_bytes',
                                       'hw_mac_util']);
    for (const m of figures.filter((m, i) => figures.indexOf(m) === i && columns.includes(m) &&
                                             !d.parameters.includes(m)))
      lines.push(m + ': ' + npusim.fmt(at(p, m)));
    if (p.front) lines.push('on the Pareto front');
    return lines;
  };
  const xType = npusim.axisType(ok.map((p) => at(p, x)));
  const yType = npusim.axisType(ok.map((p) => at(p, y)));
  const pareto = new Chart(document.getElementById('pareto'), {
    type: 'scatter',
    data: { datasets },
    options: {
      responsive: true, maintainAspectRatio: false,
      scales: {
        x: { type: xType, title: { display: true, text: axisTitle(x) },
             ticks: { callback: npusim.tickLabel(xType) } },
        y: { type: yType, title: { display: true, text: axisTitle(y) },
             ticks: { callback: npusim.tickLabel(yType) } },
      },
      plugins: {
        legend: { labels: {
          usePointStyle: true,
          filter: (item) => item.text !== 'front line',
          // The key shows a dataset's plain mark, not its first point's (which may be selected).
          generateLabels: (chart) => Chart.defaults.plugins.legend.labels.generateLabels(chart)
            .map((l) => Object.assign(l, { strokeStyle: datasets[l.datasetIndex].edge || l.strokeStyle,
                                           lineWidth: 1.2 })),
        } },
        tooltip: {
          filter: (item) => item.dataset.marks === true,
          callbacks: {
            title: (items) => items.map((i) => 'point ' + i.raw.point.number + ' (' + i.raw.point.id + ')'),
            label: (item) => tooltipLines(item.raw.point),
          },
        },
      },
      onHover: (event, elements) => {
        event.native.target.style.cursor = elements.length ? 'pointer' : 'default';
      },
      onClick: (_event, elements) => {
        const hit = elements.find((e) => pareto.data.datasets[e.datasetIndex].marks);
        if (hit) toggle(pareto.data.datasets[hit.datasetIndex].data[hit.index].point.number);
      },
    },
  });
  state.marks = npusim.countMarks(pareto);
  state.frontMarks = pareto.getDatasetMeta(1).data.length;

  // ------------------------------------------------- two points side by side
  function ratio(a, b) {
    if (typeof a !== 'number' || typeof b !== 'number' || a === 0) return '-';
    const r = b / a;
    return r < 10 ? r.toFixed(2) : r < 100 ? r.toFixed(1) : r.toFixed(0);
  }
  function renderSelection() {
    const box = document.getElementById('selection');
    box.textContent = '';
    state.selected = selected.slice();
    if (selected.length === 0) {
      box.appendChild(npusim.el('p', { class: 'note' }, 'No points selected: click a mark, then another.'));
      state.comparisonRows = 0;
      return;
    }
    const chosen = selected.map((n) => points[n]);
    const head = npusim.el('p', { class: 'note' });
    head.textContent = selected.length === 1 ? 'Point A selected: click another mark to compare.'
                                             : 'A and B side by side; B/A is the ratio, as npusim diff prints it.';
    const clear = npusim.el('button', { type: 'button' }, 'clear');
    clear.addEventListener('click', () => { selected = []; update(); });
    head.appendChild(clear);
    box.appendChild(head);
    const table = npusim.el('table', { id: 'comparison' });
    const hr = table.createTHead().insertRow();
    hr.appendChild(npusim.el('th', {}, ''));
    chosen.forEach((p, k) => {
      const th = npusim.el('th', { class: 'num' });
      const swatch = npusim.el('span', { class: 'swatch' });
      swatch.style.background = COLOURS[k];
      th.appendChild(swatch);
      th.appendChild(document.createTextNode((k ? 'B' : 'A') + ': point ' + p.number + ' (' + p.id + ')'));
      hr.appendChild(th);
    });
    if (chosen.length === 2) hr.appendChild(npusim.el('th', { class: 'num' }, 'B/A'));
    const body = table.createTBody();
    let rows = 0;
    const group = (text) => {
      const tr = body.insertRow();
      tr.className = 'group';
      const td = tr.insertCell();
      td.colSpan = chosen.length + 2;
      td.textContent = text;
    };
    const row = (name, values, withRatio) => {
      const tr = body.insertRow();
      tr.insertCell().textContent = name;
      const differs = values.length === 2 && String(values[0]) !== String(values[1]);
      for (const v of values) {
        const td = tr.insertCell();
        td.className = 'num' + (differs ? ' differs' : '');
        td.textContent = npusim.fmt(v);
      }
      if (values.length === 2) {
        const td = tr.insertCell();
        td.className = 'num';
        td.textContent = withRatio ? ratio(values[0], values[1]) : '';
      }
      rows += 1;
    };
    group('parameters');
    for (const name of d.parameters) row(name, chosen.map((p) => at(p, name)), false);
    group('metrics');
    for (const name of d.metrics) row(name, chosen.map((p) => at(p, name)), true);
    row('status', chosen.map((p) => p.status), false);
    box.appendChild(table);
    state.comparisonRows = rows;
  }
  function update() {
    pareto.update();
    renderSelection();
    npusim.publish();
  }
  function toggle(n) {
    if (selected.includes(n)) selected = selected.filter((s) => s !== n);
    else selected = selected.concat([n]).slice(-2);
    update();
  }

  // --------------------------------------------------------------- sensitivity
  const grid = document.getElementById('sensitivity');
  let plots = 0;
  for (const name of varied) {
    const raw = ok.map((p) => at(p, name));
    const numeric = raw.every((v) => typeof v === 'number');
    const keys = Array.from(new Set(raw)).sort((a, b) => (numeric ? a - b : String(a).localeCompare(String(b))));
    const dots = ok.map((p) => ({ x: numeric ? at(p, name) : String(at(p, name)), y: at(p, x), point: p }));
    const medians = keys.map((k) => ({
      x: numeric ? k : String(k),
      y: npusim.median(ok.filter((p) => at(p, name) === k).map((p) => at(p, x))),
    }));
    const cell = npusim.el('div', { class: 'small' });
    cell.appendChild(npusim.el('h3', {}, x + ' against ' + name));
    const box = npusim.el('div', { class: 'chart' });
    const canvas = npusim.el('canvas', { id: 'sensitivity-' + plots });
    box.appendChild(canvas);
    cell.appendChild(box);
    grid.appendChild(cell);
    const keyType = numeric ? npusim.axisType(keys) : 'category';
    // A tick at each value when there are few (bytes and KiB read exactly: 1024, not 1.02k).
    const exact = numeric && keys.length <= 12;
    const xScale = numeric
      ? { type: keyType, title: { display: true, text: name },
          ticks: { callback: exact ? (v) => (keys.includes(v) ? npusim.fmt(v) : '')
                                   : npusim.tickLabel(keyType) } }
      : { type: 'category', labels: keys.map(String), offset: true, title: { display: true, text: name } };
    if (exact)
      xScale.afterBuildTicks = (axis) => { axis.ticks = keys.map((v) => ({ value: v })); };
    new Chart(canvas, {
      type: 'scatter',
      data: { datasets: [
        { label: 'points', data: dots, backgroundColor: 'rgba(31, 119, 180, 0.5)', pointRadius: 4 },
        { type: 'line', label: 'median', data: medians, borderColor: '#d62728', borderWidth: 1.5,
          pointRadius: 2.5, pointBackgroundColor: '#d62728' },
      ] },
      options: {
        responsive: true, maintainAspectRatio: false,
        scales: { x: xScale, y: { type: xType, title: { display: true, text: axisTitle(x) },
                                  ticks: { callback: npusim.tickLabel(xType) } } },
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: {
            title: (items) => items.map((i) => (i.raw.point ? 'point ' + i.raw.point.number
                                                             : 'median at ' + name + '=' + i.raw.x)),
            label: (item) => (item.raw.point ? describe(item.raw.point) + ': ' : '') + x + ' ' +
                             npusim.fmt(item.raw.y),
          } },
        },
      },
    });
    plots += 1;
  }
  if (plots === 0)
    grid.appendChild(npusim.el('p', { class: 'note' }, 'No parameter takes more than one value among the finished points.'));
  state.sensitivityPlots = plots;

  // ------------------------------------------------------------ for tests and links
  // The tooltip shown now, and where point n's mark is in the window (scrolled into view):
  // tests/browser moves the mouse there.
  const tooltipNow = () => {
    const tip = pareto.tooltip;
    if (!tip || tip.opacity === 0 || !tip.dataPoints || !tip.dataPoints.length) return null;
    return { title: tip.title, lines: tip.body.map((b) => b.lines).flat() };
  };
  state.tooltipNow = tooltipNow;  // functions stay out of the published JSON
  state.markPosition = (n) => {
    for (let di = 0; di < datasets.length; ++di) {
      if (!datasets[di].marks) continue;
      const index = datasets[di].data.findIndex((m) => m.point.number === n);
      if (index < 0) continue;
      pareto.canvas.scrollIntoView({ block: 'center' });
      const e = pareto.getDatasetMeta(di).data[index];
      const rect = pareto.canvas.getBoundingClientRect();
      return { x: rect.left + e.x, y: rect.top + e.y };
    }
    return null;
  };
  // #select=3,7 selects two points; #hover=2 shows a point's tooltip (point numbers).
  const options = npusim.hashOptions();
  for (const n of options.select || []) if (points[n] && points[n].status === 'ok') toggle(n);
  update();
  if (options.hover && options.hover.length) {
    const n = options.hover[0];
    const di = datasets.findIndex((ds) => ds.marks && ds.data.some((m) => m.point.number === n));
    if (di >= 0) {
      const index = datasets[di].data.findIndex((m) => m.point.number === n);
      const element = pareto.getDatasetMeta(di).data[index];
      pareto.setActiveElements([{ datasetIndex: di, index }]);
      pareto.tooltip.setActiveElements([{ datasetIndex: di, index }], { x: element.x, y: element.y });
      pareto.update();
      state.tooltip = tooltipNow();
    }
  }
  state.ready = true;
  npusim.publish();
})();

// The run page (npusim report RUN_DIR, docs/html-report.md#a-run): the
// operator table made sortable, the roofline (tools/plot_roofline's
// definitions) and where the cycles went (tools/plot_cycles' split).
(function () {
  const d = npusim.data();
  const state = npusim.state;
  state.kind = 'run';
  const layers = d.layers.map((row) => {
    const o = {};
    d.layer_columns.forEach((c, i) => { o[c] = row[i]; });
    return o;
  });
  state.layers = layers.length;
  const table = document.getElementById('layers');
  npusim.makeSortable(table);
  state.tableRows = table.tBodies[0].rows.length;

  // ---------------------------------------------------------------- roofline
  const KIND_COLOURS = { 'conv': '#4e79a7', 'depthwise conv': '#f28e2b', 'binary conv': '#59a14f',
                         'matmul': '#e15759' };
  const peak = d.units * d.array_rows * d.array_cols;
  const bandwidth = d.dram_bytes_per_cycle;
  const points = [];
  const skipped = {};
  for (const l of layers) {
    const why = l.macs_performed <= 0 ? 'no MACs' : l.dram_bytes <= 0 ? 'no DRAM bytes'
              : l.cycles <= 0 ? 'no cycles' : null;
    if (why) {
      skipped[why] = (skipped[why] || 0) + 1;
      continue;
    }
    points.push({ x: l.macs_performed / l.dram_bytes, y: l.macs_performed / l.cycles, layer: l });
  }
  state.rooflinePoints = points.length;
  const note = [];
  for (const [why, n] of Object.entries(skipped))
    note.push(n + (n === 1 ? ' layer' : ' layers') + ' with ' + why + ' not placed');
  if (peak > 0 && bandwidth > 0 && points.length > 0) {
    const ridge = peak / bandwidth;
    const xs = points.map((p) => p.x), ys = points.map((p) => p.y);
    const xmin = Math.min(...xs, ridge) / 2.5, xmax = Math.max(Math.max(...xs) * 2.5, ridge * 10);
    const ymin = Math.min(...ys, bandwidth * xmin) / 2, ymax = Math.max(...ys, peak) * 3;
    const kinds = [];
    for (const p of points) if (!kinds.includes(p.layer.kind)) kinds.push(p.layer.kind);
    const datasets = kinds.map((k) => ({
      type: 'scatter', label: k, marks: true,
      data: points.filter((p) => p.layer.kind === k),
      backgroundColor: KIND_COLOURS[k] || '#9c9c9c', borderColor: '#000', borderWidth: 0.6,
      pointRadius: 5, pointHoverRadius: 8,
    }));
    datasets.push({ type: 'line', label: 'roofline', data: [{ x: xmin, y: bandwidth * xmin },
                    { x: ridge, y: peak }, { x: xmax, y: peak }], borderColor: '#000',
                    borderWidth: 2, pointRadius: 0, pointHitRadius: 0, pointStyle: 'line' });
    datasets.push({ type: 'line', label: 'DRAM roof past the ridge', data: [{ x: ridge, y: peak },
                    { x: xmax, y: bandwidth * xmax }], borderColor: '#000', borderWidth: 1,
                    borderDash: [2, 3], pointRadius: 0, pointHitRadius: 0 });
    datasets.push({ type: 'line', label: 'ridge', data: [{ x: ridge, y: ymin }, { x: ridge, y: ymax }],
                    borderColor: '#777', borderWidth: 1, borderDash: [6, 4], pointRadius: 0,
                    pointHitRadius: 0 });
    const lx = xmin * Math.pow(ridge / xmin, 0.45);
    const chart = new Chart(document.getElementById('roofline'), {
      type: 'scatter',
      data: { datasets },
      plugins: [npusim.labelPlugin],
      options: {
        responsive: true, maintainAspectRatio: false,
        scales: {
          x: { type: 'logarithmic', min: xmin, max: xmax,
               title: { display: true, text: 'operational intensity (MACs per DRAM byte, read + written)' },
               ticks: { callback: npusim.tickLabel('logarithmic') } },
          y: { type: 'logarithmic', min: ymin, max: ymax,
               title: { display: true, text: 'attained MACs per cycle' },
               ticks: { callback: npusim.tickLabel('logarithmic') } },
        },
        plugins: {
          legend: { labels: { usePointStyle: true,
                              filter: (item) => item.text !== 'DRAM roof past the ridge' &&
                                                item.text !== 'ridge' } },
          tooltip: {
            filter: (item) => item.dataset.marks === true,
            callbacks: {
              title: (items) => items.map((i) => '#' + i.raw.layer.index + ' ' + i.raw.layer.name),
              label: (item) => {
                const p = item.raw;
                const roof = Math.min(peak, bandwidth * p.x);
                return [p.layer.kind, 'intensity ' + npusim.fmt(p.x) + ' MACs/byte',
                        'attained ' + npusim.fmt(p.y) + ' MACs/cycle (' +
                        (100 * p.y / roof).toFixed(1) + ' % of the roof)',
                        'cycles ' + p.layer.cycles];
              },
            },
          },
          labels: { items: [
            { x: ridge, y: peak, dx: 6, text: 'compute roof: ' + peak + ' MACs/cycle (' + d.units +
              ' x ' + d.array_rows + ' x ' + d.array_cols + ')' },
            { x: lx, y: bandwidth * lx, x2: ridge, y2: peak, align: 'center',
              text: 'DRAM roof: ' + Number(bandwidth.toPrecision(4)) + ' bytes/cycle' +
                    (d.dram_sustained ? ' sustained' : '') + ' x intensity' },
            { x: ridge, y: ymin, vertical: true, colour: '#555',
              text: 'ridge: ' + npusim.fmt(ridge) + ' MACs/byte' },
          ] },
        },
      },
    });
    state.rooflineMarks = npusim.countMarks(chart);
  } else {
    state.rooflineMarks = 0;
    note.push('no layer has MACs, DRAM bytes and cycles to place on a roofline');
  }
  document.getElementById('roofline-note').textContent = note.join('; ');

  // ------------------------------------------------------ where the cycles went
  const PARTS = [
    ['compute', '#59a14f'], ['vector', '#76b7b2'], ['data dependency', '#4e79a7'],
    ['buffer space', '#f28e2b'], ['memory dependency', '#e15759'], ['DRAM bus', '#b07aa1'],
    ['cache port', '#edc948'], ['other (idle, beyond the stall cycles)', '#c7c7c7'],
  ];
  const STALLS = ['stall_dep', 'stall_buf', 'stall_mem', 'stall_bus', 'stall_port'];
  const units = Math.max(1, d.units);
  let scaled = 0;
  function split(l) {
    const cycles = Math.max(l.cycles, 0);
    const compute = Math.min(l.compute_busy_cycles / units, cycles);
    const vector = Math.min(l.vector_busy_cycles, cycles - compute);
    const idle = cycles - compute - vector;
    const stalls = STALLS.map((s) => l[s]);
    const total = stalls.reduce((a, b) => a + b, 0);
    const factor = total > 0 ? Math.min(1, idle / total) : 0;
    if (total > idle) scaled += 1;
    return [compute, vector, ...stalls.map((s) => s * factor), Math.max(0, idle - total * factor)];
  }
  // A large workload keeps the 60 layers with the most cycles, in program order.
  const LIMIT = 60;
  let shown = layers;
  if (layers.length > LIMIT) {
    const keep = new Set(layers.slice().sort((a, b) => b.cycles - a.cycles).slice(0, LIMIT));
    shown = layers.filter((l) => keep.has(l));
  }
  const splits = shown.map(split);
  const cycleDatasets = PARTS.map(([label, colour], k) => ({
    label, backgroundColor: colour, data: splits.map((s) => s[k]), stack: 'cycles',
  })).filter((ds) => ds.data.some((v) => v > 0));
  document.getElementById('cycles-box').style.height = Math.max(240, 20 * shown.length + 110) + 'px';
  const cyclesChart = new Chart(document.getElementById('cycles'), {
    type: 'bar',
    data: { labels: shown.map((l) => '#' + l.index + ' ' + l.name), datasets: cycleDatasets },
    options: {
      indexAxis: 'y', responsive: true, maintainAspectRatio: false,
      scales: {
        x: { stacked: true, title: { display: true, text: 'cycles' },
             ticks: { callback: (v) => npusim.short(v) } },
        y: { stacked: true, ticks: { autoSkip: false, font: { size: 11 } } },
      },
      plugins: {
        legend: { position: 'top' },
        tooltip: {
          mode: 'index', intersect: false,
          callbacks: {
            label: (item) => {
              const l = shown[item.dataIndex];
              const share = l.cycles > 0 ? (100 * item.raw / l.cycles).toFixed(1) : '0.0';
              return item.dataset.label + ': ' + Math.round(item.raw) + ' cycles (' + share + ' %)';
            },
          },
        },
      },
    },
  });
  state.cycleBars = cyclesChart.data.labels.length;
  const cyclesNote = [];
  if (shown.length < layers.length)
    cyclesNote.push('The ' + shown.length + ' of ' + layers.length +
                    ' layers with the most cycles, in program order.');
  cyclesNote.push('Stall shares are an attribution: in ' + scaled + ' of ' + shown.length +
                  ' layers the stall counters add up to more than the idle cycles and are scaled' +
                  ' down to fill them.');
  document.getElementById('cycles-note').textContent = cyclesNote.join(' ');

  // A test's (or a link's) choice: #sort=3 clicks the fourth header (#sort=3,3: twice).
  for (const column of npusim.hashOptions().sort || []) {
    const th = table.tHead.rows[0].cells[column];
    if (th) th.click();
  }
  state.ready = true;
  npusim.publish();
})();

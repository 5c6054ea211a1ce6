// Appended to a rendered page by the browser test: checks the picture's layout rules
// and writes the findings to <body data-layout="key=value;...">.
"use strict";
(() => {
  const chart = document.getElementById("chart");
  const inView = (r, box) => r.right > box.left && r.left < box.right && r.bottom > box.top && r.top < box.bottom;
  const screen = { left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight };
  const failing = document.getElementById("op-unplaced");
  const failingShown = failing === null ? "none"
    : inView(failing.getBoundingClientRect(), screen) && inView(failing.getBoundingClientRect(), chart.getBoundingClientRect()) ? "yes" : "no";
  // Thread names stay put while the chart scrolls sideways.
  const names = [...document.querySelectorAll("text.thread-label")];
  chart.scrollLeft = 0;
  const before = names.map(t => t.getBoundingClientRect().left);
  chart.scrollLeft = chart.scrollWidth;
  const sticky = names.every((t, at) => Math.abs(t.getBoundingClientRect().left - before[at]) < 0.5);
  chart.scrollLeft = 0;
  chart.scrollTop = 0;
  // No two labels' boxes intersect (thread names and operation labels, unscrolled).
  const boxes = [...document.querySelectorAll("text.thread-label, text.op-label")]
    .map(t => t.getBoundingClientRect()).sort((a, b) => a.left - b.left);
  let overlaps = 0;
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length && boxes[j].left < boxes[i].right - 0.01; j++) {
      if (boxes[j].top < boxes[i].bottom - 0.01 && boxes[i].top < boxes[j].bottom - 0.01) overlaps++;
    }
  }
  const unknownOk = data.ops.filter(op => op.unknown && /-> ok/.test(op.label)).length;
  const order = document.querySelectorAll("polyline.order").length;
  const failStep = document.querySelectorAll("circle.point.fail").length;
  const withStates = [...document.querySelectorAll("rect.op.prefix title")].filter(t => /state before: .*\n.*state after/.test(t.textContent)).length;
  document.body.dataset.layout = [
    "labels=" + boxes.length, "overlaps=" + overlaps, "failing=" + failingShown, "sticky=" + sticky,
    "unknownok=" + unknownOk, "order=" + order, "failstep=" + failStep,
    "prefix=" + data.prefix.length, "withstates=" + withStates,
  ].join(";");
})();

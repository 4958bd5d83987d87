// perfgate report: sorting and filtering of the tables. The page is complete without it.
(function () {
  "use strict";
  // A cell's sort key: its number in a numeric column (none when empty), else its text.
  function cellValue(cell) {
    var v = cell.getAttribute("data-sort");
    if (v !== null && v !== "") return { n: parseFloat(v) };
    if (cell.classList.contains("n")) return {};
    return { s: cell.textContent.trim().toLowerCase() };
  }
  // Empty numeric cells last in either direction; ties keep the table's order (a stable sort).
  function compare(a, b, descending) {
    var d;
    if (a.s !== undefined || b.s !== undefined) d = a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
    else if (a.n === undefined || b.n === undefined) return (a.n === undefined) - (b.n === undefined);
    else d = a.n - b.n;
    return descending ? -d : d;
  }
  // The rows of a table cut to its first rows: those shown, then those kept aside (a JSON list in
  // the table) for the orders that show them. Each column header lists, per direction, the rows the
  // whole table shows first in that order (perfgate orders them when it writes the page). A row
  // aside is a list of cells, each the index of its text among the page's texts or, for a text cut
  // to fit, [shown, whole]; its cells get their column's class (data-td), and a one-line cell its
  // text as its tooltip, as the shown rows have.
  var asideTexts;
  function pageRows(table) {
    if (!table.perfgateRows) {
      var aside = table.querySelector("script.aside"), heads = table.tHead.rows[0].cells, more = [];
      if (aside && !asideTexts) asideTexts = JSON.parse(document.getElementById("perfgate-aside-texts").textContent);
      (aside ? JSON.parse(aside.textContent) : []).forEach(function (cells) {
        var row = document.createElement("tr");
        cells.forEach(function (value, i) {
          var cell = row.insertCell(), td = heads[i] ? heads[i].getAttribute("data-td") : null;
          cell.textContent = asideTexts[typeof value === "number" ? value : value[0]];
          if (typeof value !== "number") cell.title = asideTexts[value[1]];
          if (td) cell.className = td;
          if (td === "line" && !cell.title && cell.textContent !== "–") cell.title = cell.textContent;
        });
        more.push(row);
      });
      table.perfgateRows = Array.prototype.slice.call(table.tBodies[0].rows).concat(more);
    }
    return table.perfgateRows;
  }
  function sortBy(table, index, th) {
    var body = table.tBodies[0];
    var descending = th.getAttribute("aria-sort") !== "descending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    var order = th.getAttribute(descending ? "data-desc" : "data-asc"), rows;
    if (order !== null) {
      var all = pageRows(table);
      rows = [];
      order.split(" ").forEach(function (run) {  // "7" or "0-49", a run of consecutive rows
        var ends = run.split("-").map(Number);
        for (var i = ends[0]; i <= ends[ends.length - 1]; ++i) rows.push(all[i]);
      });
      body.textContent = "";
      var note = table.querySelector("caption .order");
      if (note) note.textContent = ", by " + th.firstChild.textContent.trim() + (descending ? ", descending" : ", ascending");
    } else {
      rows = Array.prototype.slice.call(body.rows).map(function (r, i) { return { row: r, at: i }; });
      rows.sort(function (a, b) {
        return compare(cellValue(a.row.cells[index]), cellValue(b.row.cells[index]), descending) || a.at - b.at;
      });
      rows = rows.map(function (r) { return r.row; });
    }
    rows.forEach(function (r) { body.appendChild(r); });
    if (table.perfgateFilter) table.perfgateFilter();
  }
  function addFilter(table) {
    var input = document.createElement("input");
    input.type = "search";
    input.className = "filter";
    input.placeholder = "Filter rows";
    input.setAttribute("aria-label", "Filter the rows of " + (table.caption ? table.caption.firstChild.textContent : "the table"));
    // Filters the rows in the page (sorting may swap others in: it filters again).
    table.perfgateFilter = function () {
      var q = input.value.trim().toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        r.hidden = q !== "" && r.textContent.toLowerCase().indexOf(q) < 0;
      });
    };
    input.addEventListener("input", table.perfgateFilter);
    table.parentNode.insertBefore(input, table);
  }
  document.querySelectorAll("table.data").forEach(function (table) {
    if (!table.tHead || !table.tBodies.length) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.setAttribute("data-sortable", "");
      th.title = "Sort";
      th.addEventListener("click", function () { sortBy(table, i, th); });
    });
    if (table.tBodies[0].rows.length > 8) addFilter(table);
  });
  // A link to a collapsed table opens it, one to a finding its evidence; printing opens every
  // collapsed section.
  function openTarget() {
    var target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
    if (target && target.tagName === "DETAILS") target.open = true;
    var evidence = target && target.tagName === "ARTICLE" ? target.querySelector("details.evidence") : null;
    if (evidence) evidence.open = true;
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  // "Open in Perfetto": the annotated trace beside the page handed to ui.perfetto.dev by postMessage,
  // as Perfetto documents for hosted pages (docs/visualization/deep-linking-to-perfetto-ui: PING
  // until the UI answers PONG, then the buffer). Only where the page is served: a page opened from
  // a file cannot fetch the trace beside it, and keeps the link and the steps to open it by hand.
  var perfetto = document.getElementById("perfgate-open-perfetto");
  if (perfetto && /^https?:$/.test(location.protocol) && window.fetch) {
    perfetto.hidden = false;
    perfetto.addEventListener("click", function () {
      var origin = "https://ui.perfetto.dev", status = document.getElementById("perfgate-perfetto-status");
      var ui = window.open(origin);  // in the click, or the browser blocks the window
      if (!ui) { status.textContent = "The browser blocked the new window: allow pop-ups, or use the link."; return; }
      status.textContent = "Loading the trace...";
      fetch(perfetto.getAttribute("data-trace")).then(function (response) {
        if (!response.ok) throw new Error(response.status + " " + response.statusText);
        return response.arrayBuffer();
      }).then(function (buffer) {
        var timer = setInterval(function () { ui.postMessage("PING", origin); }, 50);
        window.addEventListener("message", function pong(event) {
          if (event.source !== ui || event.data !== "PONG") return;
          clearInterval(timer);
          window.removeEventListener("message", pong);
          ui.postMessage({ perfetto: { buffer: buffer, title: perfetto.getAttribute("data-title"), url: location.href } }, origin);
          status.textContent = "";
        });
      }).catch(function (error) { status.textContent = "Could not read the trace: " + error.message; });
    });
  }
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
})();
// Charts laid out for the width they get (issue 93; src/render/html/fluid_svg.h): each chart drawn
// for one width carries the rules of its positions (data-x: "attribute f o", f × width + o px);
// here they are set at the width the chart is shown at, so that its text keeps its size. A label
// longer than its room (data-fit) is shortened, whole in its tooltip, or left out (data-hide); an
// axis label (class thin) that would overlap another text is left out.
(function () {
  "use strict";
  function rule(text, width) { var p = text.split(" "); return +p[p.length - 2] * width + +p[p.length - 1]; }
  function fit(t, room) {
    if (t.perfgateLabel === undefined) t.perfgateLabel = t.textContent;
    var whole = t.perfgateLabel;
    t.textContent = whole;
    if (t.getComputedTextLength() <= room) return;
    if (t.hasAttribute("data-hide")) { t.setAttribute("display", "none"); return; }
    var lo = 0, hi = whole.length - 1;
    while (lo < hi) {  // the longest beginning that fits with an ellipsis
      var mid = (lo + hi + 1) >> 1;
      t.textContent = whole.slice(0, mid) + "\u2026";
      if (t.getComputedTextLength() <= room) lo = mid; else hi = mid - 1;
    }
    if (lo === 0) { t.setAttribute("display", "none"); return; }
    t.textContent = whole.slice(0, lo) + "\u2026";
    var title = document.createElementNS(t.namespaceURI, "title");
    title.textContent = whole;
    t.appendChild(title);
  }
  function overlaps(a, b) { return a.left < b.right + 4 && b.left < a.right + 4 && a.top < b.bottom && b.top < a.bottom; }
  function layout(svg) {
    var width = svg.getBoundingClientRect().width;
    if (!width) return;  // not shown (a closed section, the other layout of a chart)
    svg.setAttribute("viewBox", "0 0 " + width + " " + svg.getAttribute("height"));
    // Its drawn height (the style sheet's "height: auto" keeps the ratio it was drawn at).
    svg.style.height = svg.getAttribute("height") + "px";
    svg.querySelectorAll("[data-x]").forEach(function (e) {
      e.getAttribute("data-x").split(";").forEach(function (r) {
        e.setAttribute(r.split(" ")[0], rule(r, width).toFixed(1));
      });
    });
    var texts = Array.prototype.slice.call(svg.querySelectorAll("text"));
    texts.forEach(function (t) { t.removeAttribute("display"); });
    texts.forEach(function (t) { if (t.hasAttribute("data-fit")) fit(t, rule(t.getAttribute("data-fit"), width)); });
    var kept = [];
    texts.forEach(function (t) { if (!t.classList.contains("thin") && !t.hasAttribute("display")) kept.push(t.getBoundingClientRect()); });
    texts.forEach(function (t) {
      if (!t.classList.contains("thin") || t.hasAttribute("display")) return;
      var box = t.getBoundingClientRect();
      if (kept.some(function (k) { return overlaps(box, k); })) t.setAttribute("display", "none");
      else kept.push(box);
    });
  }
  function layoutAll() { document.querySelectorAll("svg[data-fluid]").forEach(layout); }
  window.perfgateLayoutCharts = layoutAll;
  layoutAll();
  if (window.ResizeObserver) {
    var observer = new ResizeObserver(function (entries) { entries.forEach(function (e) { layout(e.target); }); });
    document.querySelectorAll("svg[data-fluid]").forEach(function (svg) { observer.observe(svg); });
  } else {
    window.addEventListener("resize", layoutAll);
    document.addEventListener("toggle", layoutAll, true);
  }
  window.addEventListener("beforeprint", layoutAll);
  window.addEventListener("afterprint", layoutAll);
})();

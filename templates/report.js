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
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
})();

// perfgate report: sorting and filtering of the tables. The page is complete without it.
(function () {
  "use strict";
  function cellValue(cell) {
    var v = cell.getAttribute("data-sort");
    if (v !== null && v !== "") return { n: parseFloat(v) };
    return { s: cell.textContent.trim().toLowerCase() };
  }
  function compare(a, b) {
    if (a.n !== undefined && b.n !== undefined) return a.n - b.n;
    if (a.n !== undefined) return -1;
    if (b.n !== undefined) return 1;
    return a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
  }
  function sortBy(table, index, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var descending = th.getAttribute("aria-sort") !== "descending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    rows.sort(function (r1, r2) {
      var d = compare(cellValue(r1.cells[index]), cellValue(r2.cells[index]));
      return descending ? -d : d;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function addFilter(table) {
    var input = document.createElement("input");
    input.type = "search";
    input.className = "filter";
    input.placeholder = "Filter rows";
    input.setAttribute("aria-label", "Filter the rows of " + (table.caption ? table.caption.firstChild.textContent : "the table"));
    input.addEventListener("input", function () {
      var q = input.value.trim().toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        r.hidden = q !== "" && r.textContent.toLowerCase().indexOf(q) < 0;
      });
    });
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
  // A link to a collapsed table opens it; printing opens every collapsed section.
  function openTarget() {
    var target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
    if (target && target.tagName === "DETAILS") target.open = true;
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  });
})();

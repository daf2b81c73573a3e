(function () {
  "use strict";
  var data = {};
  var holder = document.getElementById("diagram-data");
  if (holder) { data = JSON.parse(holder.textContent); }
  var selected = null;
  var caption = document.getElementById("state-caption");

  function clear() {
    Array.prototype.forEach.call(document.querySelectorAll(".hl"), function (el) {
      el.classList.remove("hl");
    });
    Array.prototype.forEach.call(document.querySelectorAll(".state-btn"), function (b) {
      b.setAttribute("aria-pressed", "false");
    });
  }

  function select(key) {
    clear();
    if (selected === key || !data[key]) {
      selected = null;
      if (caption) { caption.textContent = ""; }
      return;
    }
    selected = key;
    var info = data[key];
    var node = document.getElementById(key);
    if (node) { node.classList.add("hl"); }
    info.edges.forEach(function (id) {
      var el = document.getElementById(id);
      if (el) { el.classList.add("hl"); }
    });
    info.rules.forEach(function (id) {
      var el = document.getElementById(id);
      if (el) { el.classList.add("hl"); }
    });
    var button = document.querySelector('.state-btn[data-key="' + key + '"]');
    if (button) { button.setAttribute("aria-pressed", "true"); }
    if (caption) {
      caption.textContent = info.labels.length
        ? info.name + ": " + info.labels.length + " rule" + (info.labels.length === 1 ? "" : "s") +
          " mention it (highlighted below): " + info.labels.join(", ")
        : info.name + ": no rule mentions it";
    }
  }

  Array.prototype.forEach.call(document.querySelectorAll(".state-btn"), function (b) {
    b.addEventListener("click", function () { select(b.getAttribute("data-key")); });
  });
  Array.prototype.forEach.call(document.querySelectorAll("#diagram g.node.state"), function (g) {
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    g.addEventListener("click", function () { select(g.id); });
    g.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); select(g.id); }
    });
  });

  var opened = [];
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details:not([open])"), function (d) {
      d.open = true;
      opened.push(d);
    });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });

  var search = document.getElementById("f-search");
  var filters = ["state", "kind", "severity", "rule"].map(function (n) {
    return document.getElementById("f-" + n);
  });
  var count = document.getElementById("f-count");
  function applyFilters() {
    var words = search ? search.value.toLowerCase().trim() : "";
    var want = filters.map(function (f) { return f ? f.value : ""; });
    var attrs = ["data-states", "data-kinds", "data-severity", "data-rules"];
    var cards = document.querySelectorAll("article.cause");
    var shown = 0;
    Array.prototype.forEach.call(cards, function (card) {
      var ok = !words || card.textContent.toLowerCase().indexOf(words) >= 0;
      want.forEach(function (v, i) {
        if (ok && v) {
          ok = (card.getAttribute(attrs[i]) || "").split("|").indexOf(v) >= 0;
        }
      });
      card.hidden = !ok;
      if (ok) { shown += 1; }
    });
    if (count) {
      count.textContent = (words || want.join("")) ? shown + " of " + cards.length + " shown" : "";
    }
  }
  if (search) { search.addEventListener("input", applyFilters); }
  filters.forEach(function (f) { if (f) { f.addEventListener("change", applyFilters); } });

  function reveal() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var el = id ? document.getElementById(id) : null;
    var box = el ? el.closest("details") : null;
    if (box) { box.open = true; }
  }
  window.addEventListener("hashchange", reveal);
  reveal();
}());

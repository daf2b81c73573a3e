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

  function reveal() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var el = id ? document.getElementById(id) : null;
    var box = el ? el.closest("details") : null;
    if (box) { box.open = true; }
  }
  window.addEventListener("hashchange", reveal);
  reveal();
}());

// The desk's only script (served from /static, so the CSP's script-src 'self' allows it).
// Keyboard shortcuts on the review desk, and a confirm() before destructive forms.
// It never reads or writes HTML: every page is rendered (and escaped) by the server.
"use strict";

(function () {
  function cards() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-card]"));
  }

  function current() {
    var list = cards();
    var active = document.activeElement;
    for (var i = 0; i < list.length; i++) {
      if (list[i] === active || list[i].contains(active)) {
        return i;
      }
    }
    return -1;
  }

  function focusCard(index) {
    var list = cards();
    if (!list.length) {
      return;
    }
    var i = Math.max(0, Math.min(index, list.length - 1));
    list[i].focus();
    list[i].scrollIntoView({ block: "nearest" });
  }

  function press(card, key) {
    var target = card.querySelector('[data-key="' + key + '"]');
    if (!target) {
      return false;
    }
    if (key === "e") {
      var details = card.querySelector("details[data-edit]");
      if (details) {
        details.open = true;
        var area = details.querySelector("textarea");
        if (area) {
          area.focus();
        }
      }
      return true;
    }
    if (key === "s") {
      card.classList.add("skipped");
      focusCard(cards().indexOf(card) + 1);
      return true;
    }
    var form = target.closest("form");
    if (form) {
      form.requestSubmit(target);
      return true;
    }
    return false;
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    var tag = (event.target && event.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") {
      if (event.key === "Escape" && event.target.blur) {
        event.target.blur();
      }
      return;
    }
    if (event.key === "/") {
      var search = document.getElementById("search");
      if (search) {
        event.preventDefault();
        search.focus();
      }
      return;
    }
    if (!cards().length) {
      return;
    }
    var index = current();
    if (event.key === "j" || event.key === "ArrowDown") {
      event.preventDefault();
      focusCard(index + 1);
    } else if (event.key === "k" || event.key === "ArrowUp") {
      event.preventDefault();
      focusCard(index - 1);
    } else if ("aers".indexOf(event.key) >= 0 && event.key.length === 1) {
      if (index < 0) {
        focusCard(0);
        index = 0;
      }
      if (press(cards()[index], event.key)) {
        event.preventDefault();
      }
    }
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) {
      event.preventDefault();
    }
  });

  document.addEventListener("click", function (event) {
    var skip = event.target.closest && event.target.closest("[data-skip]");
    if (skip) {
      event.preventDefault();
      var card = skip.closest("[data-card]");
      if (card) {
        press(card, "s");
      }
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    if (cards().length && !document.querySelector(".flash.error")) {
      focusCard(0);
    }
  });
})();

// Forum pages: the preview button of the post forms. Without JavaScript the button stays
// hidden and the form posts as usual. The server renders the preview with the post renderer
// (sanitized HTML), so it is shown exactly as the post will be.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("button[data-preview-url]").forEach(function (button) {
      var form = button.form;
      var target = document.getElementById(button.dataset.previewTarget);
      if (!form || !target || !window.fetch) { return; }
      button.hidden = false;
      button.addEventListener("click", function () {
        var data = new FormData();
        data.append("csrfmiddlewaretoken", form.elements.csrfmiddlewaretoken.value);
        data.append("body", form.elements.body.value);
        button.disabled = true;
        fetch(button.dataset.previewUrl, {method: "POST", body: data, credentials: "same-origin",
                                          headers: {"X-Requested-With": "fetch"}})
          .then(function (response) { return response.text(); })
          .then(function (html) { target.innerHTML = html; target.hidden = false; })
          .catch(function () { target.hidden = true; })
          .then(function () { button.disabled = false; });
      });
    });
  });
})();

/* The add/change game form: show only the chosen rule set's phase lengths and options, and
   the per-phase fields only with the "custom" preset. Without this script every field shows
   and the server reads only the chosen rule set's ones. */
(function () {
  "use strict";
  function update() {
    var select = document.getElementById("id_ruleset");
    if (!select) return;
    var chosen = select.value;
    document.querySelectorAll("fieldset.ruleset-fields").forEach(function (set) {
      var mine = set.classList.contains("ruleset-" + chosen);
      set.hidden = !mine;
      var custom = set.querySelector('input[name="preset_' + chosen + '"][value="custom"]');
      set.querySelectorAll('[class*="field-dur_"]').forEach(function (row) {
        row.hidden = !(mine && custom && custom.checked);
      });
    });
    var cutoff = document.querySelector(".field-change_cutoff_minutes");
    var customChosen = document.querySelector(
      'input[name="preset_' + chosen + '"][value="custom"]');
    if (cutoff) cutoff.hidden = !(customChosen && customChosen.checked);
    document.dispatchEvent(new CustomEvent("game-setup-changed"));
  }
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("game_form");
    if (!form) return;
    form.addEventListener("change", update);
    update();
  });
})();

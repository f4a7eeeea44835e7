// Destination labels never overlap: run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  LABEL_HEIGHT, MIDDLE, WIDTH, labelWidth, placeLabels, pointBox, trayBox,
} from "../../static/js/board/geometry.js";

function wantedAt(key, label) {
  if (key === "off") {
    const tray = trayBox();
    return { key, x: tray.x + tray.width / 2, y: MIDDLE + 40, width: labelWidth(label), height: LABEL_HEIGHT, dir: 1 };
  }
  const box = pointBox(Number(key));
  return {
    key,
    x: box.x + box.width / 2,
    y: box.top ? box.tip + 18 : box.tip - 18,
    width: labelWidth(label),
    height: LABEL_HEIGHT,
    dir: box.top ? -1 : 1,
  };
}

function disjoint(a, b) {
  return Math.abs(a.x - b.x) * 2 >= a.width + b.width || Math.abs(a.y - b.y) * 2 >= a.height + b.height;
}

function assertNoOverlap(placed) {
  const boxes = [...placed.entries()];
  for (let i = 0; i < boxes.length; i += 1) {
    for (let j = i + 1; j < boxes.length; j += 1) {
      assert.ok(disjoint(boxes[i][1], boxes[j][1]), `${boxes[i][0]} and ${boxes[j][0]} overlap`);
    }
  }
}

test("1-1 from the 6-point: four neighbouring labels, none overlapping, each over its own point", () => {
  const targets = [["5", "1"], ["4", "1+1"], ["3", "1+1+1"], ["2", "1+1+1+1"]];
  const wanted = targets.map(([key, label]) => wantedAt(key, label));
  // Where they stood before: side by side at the same height, the wide ones overlapping.
  assert.ok(!disjoint(wanted[2], wanted[3]), "the naive places do overlap");
  const placed = placeLabels(wanted);
  assertNoOverlap(placed);
  for (const [key] of targets) {
    const box = pointBox(Number(key));
    assert.equal(placed.get(key).x, box.x + box.width / 2, `label ${key} stays over its point`);
  }
  assert.equal(placed.get("5").y, wanted[0].y, "the first label keeps its place");
  assert.ok(wanted.some((label) => placed.get(label.key).y > label.y), "a label in the way stepped down");
  for (const label of wanted) assert.ok(placed.get(label.key).y >= label.y, "bottom-row labels never step up");
});

test("top-row labels step up, and a label at the tray stays inside the board", () => {
  const targets = [["off", "1+1+1+1"], ["1", "1+1+1"], ["2", "1+1"], ["22", "2+2"], ["21", "2+2+2"]];
  const placed = placeLabels(targets.map(([key, label]) => wantedAt(key, label)));
  assertNoOverlap(placed);
  const off = placed.get("off");
  assert.ok(off.x + off.width / 2 <= WIDTH, "inside the right edge");
  assert.ok(placed.get("21").y < placed.get("22").y, "the second top label moved up");
});

test("every double from every point: no two labels ever meet", () => {
  for (let die = 1; die <= 6; die += 1) {
    for (let from = 24; from >= 1; from -= 1) {
      const wanted = [];
      for (let k = 1; k <= 4; k += 1) {
        const to = from - die * k;
        const label = Array(k).fill(die).join("+");
        if (to >= 1) wanted.push(wantedAt(String(to), label));
        else if (to === 0) wanted.push(wantedAt("off", label));
      }
      const placed = placeLabels(wanted);
      assertNoOverlap(placed);
      for (const box of placed.values()) {
        assert.ok(box.y - box.height / 2 >= 0 && box.y + box.height / 2 <= 2 * MIDDLE, "inside the board");
      }
    }
  }
});

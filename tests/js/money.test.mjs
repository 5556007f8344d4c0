import "./setup.mjs";

import assert from "node:assert/strict";
import { test } from "node:test";

import { formatCents, formatMoney, fromCents, toCents, withCurrency } from "../../static/js/money.js";

test("toCents reads the server's decimal strings exactly", () => {
  assert.equal(toCents("12.5"), 1250);
  assert.equal(toCents("12.05"), 1205);
  assert.equal(toCents("-3.00"), -300);
  assert.equal(toCents(" 7 "), 700);
  assert.equal(toCents(25), 2500);
  assert.equal(toCents("0.01"), 1);
  assert.equal(toCents("4.35"), 435); // 4.35 * 100 is 434.99999999999994 in floating point
});

test("toCents refuses what is not an amount in cents", () => {
  for (const amount of ["1.234", "1,000.00", "", "abc", "1e3", ".5", "--1", "1."]) {
    assert.throws(() => toCents(amount), /not an amount/, amount);
  }
});

test("fromCents writes the string the server expects", () => {
  assert.equal(fromCents(1250), "12.50");
  assert.equal(fromCents(5), "0.05");
  assert.equal(fromCents(-5), "-0.05");
  assert.equal(fromCents(0), "0.00");
  assert.equal(fromCents(100000), "1000.00");
  for (const amount of ["0.01", "99.99", "-12.30", "123456789.10"]) assert.equal(fromCents(toCents(amount)), amount);
});

test("formatCents groups the thousands and keeps the cents exact", () => {
  assert.equal(formatCents(100000), "1,000.00");
  assert.equal(formatCents(5), "0.05");
  assert.equal(formatCents(-150), "-1.50");
  assert.equal(formatCents(-5), "-0.05");
  assert.equal(formatCents(123456789012), "1,234,567,890.12");
  assert.equal(formatCents(900719925474099), "9,007,199,254,740.99"); // no floating point on the way
});

test("formatCents short drops whole cents only, as the chips show amounts", () => {
  assert.equal(formatCents(100000, { short: true }), "1,000");
  assert.equal(formatCents(-2500, { short: true }), "-25");
  assert.equal(formatCents(150, { short: true }), "1.50");
});

test("formatMoney and withCurrency, from the server's string", () => {
  assert.equal(formatMoney("1000.00"), "1,000.00");
  assert.equal(formatMoney("-0.5"), "-0.50");
  assert.equal(withCurrency(formatMoney("2500"), "EUR"), "2,500.00 EUR");
});

"""The browser tests' own CSP check catches a violation (issue 18: "a browser test that fails on any CSP
violation report"): an inline style or script in a page of the app is reported with its directive, on the
page's first load as well as later, and the check every browser test ends with fails on it. Each test then
forgets the violation it caused: the check is shown to fail by calling it, not by failing the test."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, Route

from tests.browser.conftest import BrowserProblems, no_console_errors

pytestmark = pytest.mark.browser

STYLE_ADDED = """() => new Promise((resolve) => {
    document.addEventListener("securitypolicyviolation", () => resolve(true), {once: true});
    const style = document.createElement("style");
    style.textContent = "body { outline: 3px solid red; }";
    document.head.append(style);
})"""


def violations_reported(page: Page, problems: BrowserProblems) -> list[str]:
    """The violations reported, once there is one (or after 5 s)."""
    for _ in range(50):
        if problems.csp_violations:
            break
        page.wait_for_timeout(100)
    page.wait_for_timeout(200)  # and any that came with it
    return list(problems.csp_violations)


def check_fails_then_forget(problems: BrowserProblems, *expected: str) -> None:
    with pytest.raises(AssertionError, match="CSP violations") as failure:
        problems.assert_csp_clean()
    for text in expected:
        assert text in str(failure.value)
    problems.csp_violations.clear()  # caused on purpose: the test itself passes
    problems.assert_csp_clean()


def test_an_inline_style_added_to_a_page_is_a_violation_the_check_fails_on(new_context, browser_problems):
    page = new_context().new_page()
    response = page.goto("/accounts/login/")
    assert "style-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_timeout(300)
    assert browser_problems.csp_violations == []  # the page as served is clean

    assert page.evaluate(STYLE_ADDED) is True
    [violation] = violations_reported(page, browser_problems)
    assert violation.startswith("style-src-elem blocked inline on ")
    assert "/accounts/login/" in violation
    assert page.evaluate("getComputedStyle(document.body).outlineStyle") == "none"  # and it was blocked
    check_fails_then_forget(browser_problems, "style-src-elem blocked inline")


def test_a_violation_on_a_pages_first_load_is_caught_too(new_context, browser_problems):
    """The listeners are there before the first navigation: an inline script served in the page's HTML (put
    there by the test on its way to the browser, the server's CSP header kept) is reported, and logged as a
    console error of the page."""
    page = new_context().new_page()

    def inline_script_added(route: Route) -> None:
        served = route.fetch()
        html = served.text().replace("</head>", "<script>document.title = 'injected';</script></head>")
        route.fulfill(response=served, body=html)

    page.route("**/accounts/login/", inline_script_added)
    page.goto("/accounts/login/")
    [violation] = violations_reported(page, browser_problems)
    assert violation.startswith("script-src-elem blocked inline on ")
    assert page.title() != "injected"
    assert any("Content Security Policy" in error for error in no_console_errors(page))
    check_fails_then_forget(browser_problems, "script-src-elem blocked inline")

"""Async scenarios for tests without the database."""

import asyncio
import threading


def in_a_loop_of_its_own(scenario) -> None:
    """Run ``scenario`` in a thread and event loop of its own: these tests use no database, so pytest-django
    runs them last, after the browser tests, whose Playwright keeps an event loop running in the main thread."""
    failures: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(scenario())
        except BaseException as failure:
            failures.append(failure)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive(), "the scenario did not end"
    if failures:
        raise failures[0]

"""What the kernel's tests share."""

import socket

import pytest


@pytest.fixture
def silent_redis():
    """A server that accepts connections and never answers, as a partitioned Redis looks to a client."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
    listener.close()

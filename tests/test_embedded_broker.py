"""The embedded broker (config.broker) under several producers and consumers at once.

`make run` has many processes on one queue folder: the web server and the
beat publish, three workers consume, each in its own process. kombu's own
filesystem transport let a consumer read a message its producer had only
begun to write: the worker died of the JSON error, and the message was gone.
Here producers and consumers run in processes of their own, on the real
transport, with messages big enough that writing one takes a while.
"""

import multiprocessing
import queue as queues
import time

from kombu import Connection

from config.broker import queue_order, write_whole

TRANSPORT = "config.broker:Transport"
PRODUCERS = 3
CONSUMERS = 2
MESSAGES = 150  # per producer
PAD = "x" * 200_000  # a message of 200 KB takes a while to write


def options(folder):
    return {
        "data_folder_in": str(folder / "queue"),
        "data_folder_out": str(folder / "queue"),
        "control_folder": str(folder / "control"),
        "claimed_folder": str(folder / "claimed"),
    }


def produce(folder, producer):
    with Connection("filesystem://", transport=TRANSPORT, transport_options=options(folder)) as c:
        line = c.SimpleQueue("bots")
        for number in range(MESSAGES):
            line.put({"producer": producer, "number": number, "pad": PAD})


def consume(folder, results, done, until):
    with Connection("filesystem://", transport=TRANSPORT, transport_options=options(folder)) as c:
        line = c.SimpleQueue("bots")
        while not done.is_set() and time.monotonic() < until:
            try:
                message = line.get(block=True, timeout=0.05)
            except queues.Empty:
                continue
            except Exception as error:  # what killed the worker: report it, go on
                results.put(("error", repr(error)))
                continue
            body = message.payload
            message.ack()
            whole = body["pad"] == PAD
            results.put(("got", (body["producer"], body["number"], whole)))


def test_every_message_reaches_exactly_one_consumer_whole(tmp_path):
    (tmp_path / "queue").mkdir()
    context = multiprocessing.get_context("fork")
    results, done = context.Queue(), context.Event()
    until = time.monotonic() + 60
    consumers = [
        context.Process(target=consume, args=(tmp_path, results, done, until))
        for _ in range(CONSUMERS)
    ]
    producers = [
        context.Process(target=produce, args=(tmp_path, number)) for number in range(PRODUCERS)
    ]
    for process in consumers + producers:
        process.start()
    for process in producers:
        process.join(60)
        assert process.exitcode == 0

    got, errors = [], []
    expected = PRODUCERS * MESSAGES
    while len(got) < expected and time.monotonic() < until + 1:
        try:
            kind, value = results.get(timeout=0.5)
        except queues.Empty:
            continue
        (got if kind == "got" else errors).append(value)
    time.sleep(0.5)  # a message read twice would arrive now
    done.set()
    while True:
        try:
            kind, value = results.get(timeout=0.5)
        except queues.Empty:
            break
        (got if kind == "got" else errors).append(value)
    for process in consumers:
        process.join(until - time.monotonic() + 5)
        assert process.exitcode == 0

    assert not errors, errors[:3]
    assert all(whole for _, _, whole in got)
    received = sorted((producer, number) for producer, number, _ in got)
    wanted = [(producer, number) for producer in range(PRODUCERS) for number in range(MESSAGES)]
    assert received == wanted, f"{len(received)} received of {len(wanted)}"
    assert list((tmp_path / "queue").glob("*.msg")) == []


def test_an_unreadable_message_is_set_aside_and_the_next_one_read(tmp_path):
    folder = tmp_path / "queue"
    folder.mkdir()
    (folder / "1_a.bots.msg").write_bytes(b"")  # what a cut-short write leaves
    with Connection("filesystem://", transport=TRANSPORT, transport_options=options(tmp_path)) as c:
        line = c.SimpleQueue("bots")
        line.put({"number": 2})
        message = line.get(block=True, timeout=1)
        message.ack()

    assert message.payload == {"number": 2}
    assert [path.name for path in (tmp_path / "claimed").iterdir()] == ["1_a.bots.msg.unreadable"]


def test_a_file_is_written_under_a_name_no_consumer_reads_then_renamed(tmp_path, monkeypatch):
    seen = []
    real_replace = __import__("os").replace

    def replace(source, target):
        seen.append(sorted(path.name for path in tmp_path.iterdir()))
        real_replace(source, target)

    monkeypatch.setattr("config.broker.os.replace", replace)
    write_whole(tmp_path / "1_b.bots.msg", b"{}")

    [names] = seen
    [name] = names
    assert name.startswith(".") and name.partition(".")[2] != "bots.msg"
    assert (tmp_path / "1_b.bots.msg").read_bytes() == b"{}"


def test_the_queue_is_read_oldest_first_whatever_the_number_of_digits():
    names = ["12_b.bots.msg", "1_a.bots.msg", "9_c.bots.msg", "stray.bots.msg"]
    assert sorted(names, key=queue_order) == [
        "1_a.bots.msg",
        "9_c.bots.msg",
        "12_b.bots.msg",
        "stray.bots.msg",
    ]

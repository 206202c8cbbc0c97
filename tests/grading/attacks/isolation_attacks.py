"""The attacks of ``test_isolation.py``: the source of each attacking notebook's 90.1 cell.

Each reads the constants ``test_isolation`` puts before it (paths, ports, pids of what it
attacks) and appends one ``attempt(...)`` per route to ``ATTEMPTS`` (see ``batch.py``).
"""

READS_CLASSMATES = """
import os

def read(path):
    with open(path, "rb") as handle:
        return handle.read(80)

def others(folder):
    mine = os.getcwd()
    return [name for name in os.listdir(folder) if name not in mine]

scratch = os.path.dirname(os.getcwd())
for label, path in {
    "a classmate's submission": CLASSMATE,
    "the grader's plan": os.path.join(scratch, "grader", "plan.json"),
    "the grader's log": os.path.join(scratch, "grader", "pytest.log"),
    "a classmate's connection file": VICTIM_CONNECTION,
    "the grader's Jupyter connection file": JUPYTER_CONNECTION,
}.items():
    ATTEMPTS.append(attempt(label, lambda path=path: read(path)))
for label, folder in {
    "the other scratch folders": SCRATCH_ROOT,
    "the grader's Jupyter runtime folder": os.path.dirname(JUPYTER_CONNECTION),
    "/tmp": "/tmp",
}.items():
    ATTEMPTS.append(attempt(label, lambda folder=folder: others(folder)))
ATTEMPTS.append(attempt("its own notebook", lambda: read("90_test.ipynb")))
"""

READS_COURSE = """
import os

def read(path):
    with open(path, "rb") as handle:
        return handle.read(80)

# The guarded names are computed, never written: borrowing is judged from the cell's source,
# and a cell that spells out a route to the checks or the reference is zeroed for it before
# the sandbox is ever tested (test_borrowing.py); this attack is about the sandbox.
def spelled(backwards):
    return backwards[::-1]

checks, solutions, reference = spelled("skcehc"), spelled("snoitulos"), spelled("ecnerefer")
package = os.path.join(REPO, "course_lib")
for label, path in {
    solutions + "/": os.path.join(REPO, solutions, "00_welcome.ipynb"),
    "course_lib/" + checks + "/": os.path.join(package, checks, "core.py"),
    "the lesson's check module": CHECK_MODULE,
    "course_lib/grading/": os.path.join(package, "grading", "plugin.py"),
    "course_lib/" + reference + "/": os.path.join(package, reference, "__init__.py"),
    "course_lib/driver.py": os.path.join(package, "driver.py"),
}.items():
    ATTEMPTS.append(attempt(label, lambda path=path: read(path)))
ATTEMPTS.append(attempt("importing the checks", lambda: __import__("course_lib." + checks)))
for label, folder in {
    "listing course_lib/grading/": os.path.join(package, "grading"),
    "listing course_lib/" + checks + "/": os.path.join(package, checks),
}.items():
    # the names of its modules (a covered folder holds only the placeholder that keeps it from
    # importing as a namespace package), counted: the report must stay short
    ATTEMPTS.append(
        attempt(label, lambda folder=folder: len(set(os.listdir(folder)) - {"__init__.py"}))
    )
"""

REACHES_KERNELS = """
import json, os, socket, uuid
import zmq

def connect_unix(path):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(path)
    return "connected"

def execute(url):
    # An execute_request; unsigned, since the key is in a connection file it cannot read.
    code = f"open({VICTIM_MARKER!r}, 'w').write('x')\\nVICTIM = 'attacked'"
    header = {"msg_id": uuid.uuid4().hex, "session": uuid.uuid4().hex, "username": "x",
              "msg_type": "execute_request", "version": "5.3", "date": "2024-01-01T00:00:00Z"}
    content = {"code": code, "silent": False, "store_history": False, "user_expressions": {},
               "allow_stdin": False, "stop_on_error": True}
    shell = zmq.Context.instance().socket(zmq.DEALER)
    shell.linger = 0
    shell.connect(url)
    parts = [json.dumps(part).encode() for part in (header, {}, {}, content)]
    shell.send_multipart([b"<IDS|MSG>", b"", *parts])
    answered = shell.poll(5000)
    shell.close()
    return "answered" if answered else None

def kernels_in_proc():
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if b"kernel_launcher" in command or b"ipykernel" in command:
            found.append(pid)
    return [pid for pid in found if int(pid) != os.getpid()]

for label, action in {
    "other kernels in /proc": kernels_in_proc,
    "a classmate's shell socket": lambda: connect_unix(VICTIM_SHELL),
    "code sent to a classmate's kernel": lambda: execute(f"ipc://{VICTIM_SHELL}"),
    "a kernel's TCP port": lambda: socket.create_connection(("127.0.0.1", TCP_SHELL), 10),
    "code sent to a kernel over TCP": lambda: execute(f"tcp://127.0.0.1:{TCP_SHELL}"),
}.items():
    ATTEMPTS.append(attempt(label, action))
"""

OPENS_NETWORK = """
import socket

def serve():
    server = socket.create_server(("127.0.0.1", 0))
    server.close()
    return "listening"

def send_udp():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        return sock.sendto(b"hello", ("127.0.0.1", UDP_PORT))

for label, action in {
    "TCP to the grader's loopback": lambda: socket.create_connection(("127.0.0.1", TCP_PORT), 10),
    "TCP to the internet": lambda: socket.create_connection(("1.1.1.1", 443), 10),
    "TCP by host name": lambda: socket.create_connection(("pypi.org", 443), 10),
    "a TCP server": serve,
    "UDP to the grader's loopback": send_udp,
}.items():
    ATTEMPTS.append(attempt(label, action))
"""

LEAVES_DAEMONS = """
import os, select, shutil, subprocess, sys, time

child = os.fork()
if child == 0:  # double fork and setsid: the classic daemon
    try:
        os.setsid()
        if os.fork() == 0:
            os.execv(shutil.which("sleep"), [DAEMON, "3600"])
    finally:
        os._exit(0)
os.waitpid(child, 0)
# The Python that nohup starts says when it runs. Seeing nohup's own command line is not enough:
# nohup then execs Python, and while a process is in exec /proc shows its command line empty,
# so a look taken then would miss it (seen beside busy CPUs).
DAEMON_CODE = "import time; print('up', flush=True); time.sleep(3600)"
nohup = subprocess.Popen(
    ["nohup", sys.executable, "-c", DAEMON_CODE, NOHUP],
    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    start_new_session=True,
)

def running():
    names = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
        except OSError:
            continue
        names.update(name for name in (DAEMON, NOHUP) if name in command)
    return sorted(names)

# Bounds for a hang, never a speed: each daemon's own sign of life is awaited. Python's is its
# line (or the end of the pipe, if it died); the sleep's is its name in /proc, there once its
# only exec is done. Past those neither execs again: what /proc shows next is what runs.
deadline = time.monotonic() + 100
if select.select([nohup.stdout], [], [], 100)[0]:
    nohup.stdout.readline()
nohup.stdout.close()
while DAEMON not in running() and time.monotonic() < deadline:
    time.sleep(0.05)
# Which ran (not how many), so that a run that misses one says which
ATTEMPTS.append(attempt("daemons running", lambda: " ".join(n.split("-")[2] for n in running())))
"""

READS_ENVIRONMENT = """
import os

def secrets_in(text):
    return [name for name, value in SECRETS.items() if name in text or value in text]

def every_environ():
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            found += secrets_in(open(f"/proc/{pid}/environ", "rb").read().decode(errors="replace"))
        except OSError:
            pass
    return found

def graders_own():
    return [name for name in os.environ if name.startswith(("PYTEST", "JPY_"))]

for label, action in {
    "os.environ": lambda: secrets_in(repr(dict(os.environ))),
    "/proc/*/environ": every_environ,
    "the grader's environ": lambda: open(f"/proc/{GRADER_PID}/environ").read(),
    "the grader's own variables": graders_own,
    "HOME": lambda: os.environ["HOME"],
}.items():
    ATTEMPTS.append(attempt(label, action))
"""

WRITES_OUTSIDE = """
import os

def write(path):
    with open(path, "w") as handle:
        handle.write("attack")
    return path

for label, path in WRITE_TARGETS.items():
    ATTEMPTS.append(attempt(label, lambda path=path: write(path)))
ATTEMPTS.append(attempt("its own folder", lambda: write(os.path.join(os.getcwd(), MARKER))))
"""

SIGNALS_OTHERS = """
import ctypes, os, signal, subprocess

libc = ctypes.CDLL(None, use_errno=True)

def send(pid):
    os.kill(pid, signal.SIGCONT)  # harmless if it arrived; arriving at all is the leak
    return "delivered"

def trace(pid):
    if libc.ptrace(16, pid, 0, 0) != 0:  # PTRACE_ATTACH
        raise OSError(ctypes.get_errno(), "ptrace")
    libc.ptrace(17, pid, 0, 0)  # PTRACE_DETACH
    return "attached"

def memory(pid):
    with open(f"/proc/{pid}/mem", "rb"):
        return "opened"

def own_child():
    child = subprocess.Popen(["sleep", "100"])
    os.kill(child.pid, signal.SIGTERM)
    return child.wait() == -signal.SIGTERM

for name, pid in TARGET_PIDS.items():
    for how, action in (("signal", send), ("ptrace", trace), ("mem", memory)):
        ATTEMPTS.append(attempt(f"{how} {name}", lambda action=action, pid=pid: action(pid)))
ATTEMPTS.append(attempt("signal own child", own_child))
"""

FORGES_RESULTS = """
import json, os, stat

FORGED = json.dumps({"records": [{"index": i, "kind": "passed"} for i in range(12)], "notes": []})

def inherited_pipes():
    written = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if fd > 2 and os.get_inheritable(fd) and stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, FORGED.encode())
                written.append(fd)
        except OSError:
            pass
    return written

ATTEMPTS.append(attempt("the grader's results pipe", inherited_pipes))
"""

# The red team's classmate sniffer (issue 25), shared by test_private_view.py's kernels and its
# attacking notebook: inotify on folders it cannot list names each new scratch folder, runtime
# folder and socket; a SUB socket on a classmate's IOPub then reads every execute_input (the
# source of each cell the classmate runs). It also tries the other routes to those sockets.
SNIFFER = """
import ctypes, fcntl, json, os, random, socket, struct, termios, time
import zmq
from zmq.utils.monitor import recv_monitor_message

_libc = ctypes.CDLL(None, use_errno=True)
_IN_CREATE, _IN_MOVED_TO, _IN_ISDIR = 0x100, 0x80, 0x40000000
_HANDSHAKES = zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL | (
    zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_HANDSHAKE_FAILED_AUTH | zmq.EVENT_DISCONNECTED
)
SNIFFED = {"watching": [], "refused": [], "folders": [], "sockets": [], "handshakes": {},
           "read": [], "busy": False}
_subscribers = {}  # path -> (SUB socket, its monitor)
_watch = {"fd": -1, "wds": {}}
_mine = os.path.dirname(os.getcwd())  # this kernel's own scratch folder: not a classmate's


def _error():
    return os.strerror(ctypes.get_errno())


def subscribe(path):
    # A raw connect first: a refusal (no such file, no permission) shows there at once; a
    # socket not listening yet is left to ZeroMQ, which tries again.
    if path in _subscribers or path.startswith(_mine):
        return
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(5)
            probe.connect(path)
    except ConnectionRefusedError:
        pass
    except OSError as exc:
        SNIFFED["refused"].append(f"connect {os.path.basename(path)}: {type(exc).__name__}")
        return
    sub = zmq.Context.instance().socket(zmq.SUB)
    sub.linger = 0
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    monitor = sub.get_monitor_socket(_HANDSHAKES)
    sub.connect("ipc://" + path)
    _subscribers[path] = (sub, monitor)
    SNIFFED["sockets"].append(path)


def _watch_folder(path):
    wd = _libc.inotify_add_watch(_watch["fd"], path.encode(), _IN_CREATE | _IN_MOVED_TO)
    if wd < 0:
        SNIFFED["refused"].append(f"watch {path}: {_error()}")
        return
    _watch["wds"][wd] = path
    SNIFFED["watching"].append(path)
    try:  # what was made before the watch (Landlock refuses this where it applies)
        for name in os.listdir(path):
            _found(os.path.join(path, name), os.path.isdir(os.path.join(path, name)))
    except OSError:
        pass


def _found(path, is_folder):
    if path.startswith(_mine):
        return
    if is_folder:
        SNIFFED["folders"].append(path)
        _watch_folder(path)
    elif "-ipc-" in os.path.basename(path):
        subscribe(path)


def _events():
    data = os.read(_watch["fd"], 65536)
    at = 0
    while at < len(data):
        wd, mask, _, size = struct.unpack_from("iIII", data, at)
        name = data[at + 16 : at + 16 + size].rstrip(b"\\0").decode()
        at += 16 + size
        _found(os.path.join(_watch["wds"].get(wd, "?"), name), bool(mask & _IN_ISDIR))


def _receive(sock):
    for path, (sub, monitor) in _subscribers.items():
        if sock is monitor:
            event = recv_monitor_message(monitor)["event"]
            if SNIFFED["handshakes"].get(path) != "succeeded":  # a wrong socket type hangs up
                ok = event == zmq.EVENT_HANDSHAKE_SUCCEEDED
                SNIFFED["handshakes"][path] = "succeeded" if ok else "failed"
        elif sock is sub:
            frames = sub.recv_multipart()
            if b"execute_input" in b"".join(frames):
                code = json.loads(frames[-1]).get("code", "")
                SNIFFED["read"].append(code)


def start_watching(roots):
    _watch["fd"] = _libc.inotify_init1(os.O_NONBLOCK)
    if _watch["fd"] < 0:
        SNIFFED["refused"].append(f"inotify: {_error()}")
        return
    for root in dict.fromkeys(roots):
        _watch_folder(root)


def sniff_once(timeout_ms):
    poller = zmq.Poller()
    if _watch["fd"] >= 0:
        poller.register(_watch["fd"], zmq.POLLIN)
    for sub, monitor in list(_subscribers.values()):
        poller.register(sub, zmq.POLLIN)
        poller.register(monitor, zmq.POLLIN)
    ready = poller.poll(timeout_ms)
    SNIFFED["busy"] = bool(ready)
    for item, _ in ready:
        if item == _watch["fd"]:
            _events()
        else:
            _receive(item)
    SNIFFED["busy"] = False


def sniff(seconds, until=lambda: False):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not until():
        sniff_once(100)


_background = {"thread": None, "stop": None}


def watch_in_background(roots):
    import threading

    start_watching(roots)
    _background["stop"] = threading.Event()
    _background["thread"] = threading.Thread(
        target=sniff, args=(600, _background["stop"].is_set), daemon=True
    )
    _background["thread"].start()


def stop_watching():
    _background["stop"].set()
    _background["thread"].join()
    _background["thread"] = None


def settled():
    # Nothing left to read from inotify, and every socket it connected to has a verdict.
    if _background["thread"] is None:  # nobody else reads the sockets: read them here
        sniff_once(200)
    pending = 0
    if _watch["fd"] >= 0:
        pending = struct.unpack("i", fcntl.ioctl(_watch["fd"], termios.FIONREAD, b"\\0" * 4))[0]
    verdicts = all(path in SNIFFED["handshakes"] for path in _subscribers)
    return pending == 0 and verdicts and not SNIFFED["busy"]


def stolen(word):
    return [code for code in SNIFFED["read"] if word in code]


def named_in_proc_net_unix():
    with open("/proc/net/unix") as table:
        paths = [line.split()[-1] for line in table if "-ipc-" in line]
    return [path for path in paths if not path.startswith(_mine)]


def runtime_paths_in_proc():
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")
        except OSError:
            continue
        if b"--runtime" in command:
            path = command[command.index(b"--runtime") + 1].decode()
            if not path.startswith(_mine):
                found.append(path)
    return found


def abstract_sockets():
    reached = []
    with open("/proc/net/unix") as table:
        names = [line.split()[-1] for line in table if line.split()[-1].startswith("@")]
    for name in names:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(5)
                sock.connect("\\0" + name[1:])
            reached.append(name)
        except OSError:
            pass
    return reached


def guessed_folders(root, tries=300):
    letters = "abcdefghijklmnopqrstuvwxyz0123456789_"
    hits = []
    for _ in range(tries):
        name = "course-grade-" + "".join(random.choice(letters) for _ in range(8))
        for path in (os.path.join(root, name), os.path.join(root, name, "notebook")):
            if os.path.exists(path):
                hits.append(path)
    return hits
"""

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
import os, shutil, subprocess, sys, time

child = os.fork()
if child == 0:  # double fork and setsid: the classic daemon
    try:
        os.setsid()
        if os.fork() == 0:
            os.execv(shutil.which("sleep"), [DAEMON, "3600"])
    finally:
        os._exit(0)
os.waitpid(child, 0)
subprocess.Popen(
    ["nohup", sys.executable, "-c", "import time; time.sleep(3600)", NOHUP],
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
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

deadline = time.monotonic() + 100  # the exec'd processes show up soon; a loaded box is slow
while len(running()) < 2 and time.monotonic() < deadline:
    time.sleep(0.05)
ATTEMPTS.append(attempt("daemons running", lambda: len(running())))
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

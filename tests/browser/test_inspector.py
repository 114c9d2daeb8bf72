#!/usr/bin/env python3
"""The inspector page and the session report in a real browser (headless Chromium).

Run by `make test-browser` (and so by `make test`) with ANNA set to the built `anna`:
  ANNA=.build/debug/anna .build/browser-venv/bin/python tests/browser/test_inspector.py
Screenshots go to .build/browser/. Exit 0 when every scenario passes, 1 otherwise.
"""

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
SHOTS = ROOT / ".build" / "browser"
ANNA = os.environ.get("ANNA", str(ROOT / ".build" / "debug" / "anna"))
XSS_NAME = "<img src=x onerror=alert(1)>"


def wait_for(condition, what, seconds=30.0):
    """Polls `condition` every 50 ms (a deadline for a loaded machine); raises naming `what` when it never holds."""
    deadline = time.monotonic() + seconds
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except Exception as error:  # the page may be re-rendering: look again
            last_error = error
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}" + (f" (last error: {last_error})" if last_error else ""))


def click(driver, selector, what):
    """Clicks the element `selector` finds, finding it again when the page re-rendered it meanwhile."""
    def find_and_click():
        driver.find_element(By.CSS_SELECTOR, selector).click()
        return True
    wait_for(find_and_click, f"a click on {what}")


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1100"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)


def tree_paths(driver):
    """The focus paths of the tree's rows (their titles), as the page shows them."""
    return {row.get_attribute("title") for row in driver.find_elements(By.CSS_SELECTOR, "#tree .tree-row")}


def stable_tree_paths(driver):
    """The tree's paths once two reads 200 ms apart agree: the page renders the tree as the
    stream's operations arrive, so a read right after a wait may catch it between two."""
    last = None

    def settled():
        nonlocal last
        paths, last = last, tree_paths(driver)
        return last if last == paths else None

    return wait_for(lambda: time.sleep(0.2) or settled(), "the tree to settle")


def result_rows(driver):
    """The result table's rows as (line, task, value text), read in one script call (a WebDriver
    call per cell made each poll of 500 rows take seconds)."""
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('#results tbody tr'),"
        " row => Array.from(row.querySelectorAll('td'), cell => cell.innerText.trim()));")
    return [(cells[1], cells[2], cells[4]) for cells in rows]


def no_alert(driver):
    try:
        text = driver.switch_to.alert.text
    except NoAlertPresentException:
        return True
    raise AssertionError(f"an alert opened: {text!r}: page data ran as code")


def severe_console_errors(driver):
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE" and "favicon" not in entry["message"]]


class Inspect:
    """`anna inspect` following a copy of the demo session."""

    def __init__(self, folder):
        self.stream = pathlib.Path(folder) / "session.ndjson"
        shutil.copy(DEMO / "session.ndjson", self.stream)
        self.lines = sum(1 for _ in self.stream.open())
        self.process = subprocess.Popen(
            [ANNA, "inspect", "--events", str(self.stream), "--module", str(DEMO / "module")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = self.process.stdout.readline().strip()
        if not self.url.startswith("http://127.0.0.1:"):
            raise AssertionError(f"anna inspect printed {self.url!r}, stderr: {self.process.stderr.read()}")

    def append(self, record):
        with self.stream.open("a") as stream:
            stream.write(json.dumps(record) + "\n")
        self.lines += 1
        return self.lines

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(timeout=10)
        if code != 0:
            raise AssertionError(f"anna inspect exited with {code} on SIGINT: {self.process.stderr.read()}")


def main():
    SHOTS.mkdir(parents=True, exist_ok=True)
    failures = []
    folder = tempfile.mkdtemp(prefix="anna-browser-")
    driver = browser()
    inspect = Inspect(folder)
    live_paths = set()

    def scenario(name, body):
        try:
            body()
            print(f"PASS {name}")
        except Exception:
            failures.append(name)
            print(f"FAIL {name}\n{traceback.format_exc()}")

    def tree_shows_demo():
        nonlocal live_paths
        driver.get(inspect.url)
        wait_for(lambda: driver.find_element(By.ID, "connection").text == "live", "the event stream")
        wait_for(lambda: f"line {inspect.lines} of {inspect.lines}" in driver.find_element(By.ID, "position").text, "the whole stream handled")
        expected = {"(the root)", "/home", "/home/cart", "/home/products", "/home/products/cell"}
        wait_for(lambda: expected <= tree_paths(driver), f"the demo's paths {expected}")
        wait_for(lambda: len(result_rows(driver)) == 500, "500 results")
        live_paths = stable_tree_paths(driver)
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#tasks .file"), "the task files")
        wait_for(lambda: "events/s" in driver.find_element(By.ID, "stats").text, "the figures")
        click(driver, '#tree .tree-row[title="/home/cart"]', "the cart's row")
        fields = driver.find_element(By.ID, "node-fields").text
        assert "namespace\nButton" in fields and "path\n/home/cart" in fields, fields
        assert "count" in driver.find_element(By.ID, "node-values").text
        driver.save_screenshot(str(SHOTS / "inspector.png"))

    def appended_line_shows_result():
        line = inspect.append({"op": "event", "id": 3, "name": "ana-updated", "properties": {"key-path": "count", "value": 777}})
        wait_for(lambda: any(row[0] == str(line) and '"count":777' in row[2] for row in result_rows(driver)), f"the result of line {line}")

    def disabled_namespace_stops_results():
        switch = '#namespaces button[data-namespace="HomeViewController"]'
        wait_for(lambda: driver.find_element(By.CSS_SELECTOR, switch).text == "Disable", "the namespace's switch, on")
        click(driver, switch, "the namespace's switch")
        wait_for(lambda: driver.find_element(By.CSS_SELECTOR, '#namespaces button[data-namespace="HomeViewController"]').text == "Enable", "the switch turned")
        silent = inspect.append({"op": "event", "id": 3, "name": "ana-updated", "properties": {"key-path": "count", "value": 778}})
        heard = inspect.append({"op": "event", "id": 2, "name": "ana-appeared"})  # index.js: still on
        wait_for(lambda: any(row[0] == str(heard) for row in result_rows(driver)), f"the result of line {heard} (index.js)")
        assert not any(row[0] == str(silent) for row in result_rows(driver)), "a result of the disabled namespace's task appeared"
        assert not any('"count":778' in row[2] for row in result_rows(driver))
        click(driver, switch, "the namespace's switch")
        wait_for(lambda: driver.find_element(By.CSS_SELECTOR, '#namespaces button[data-namespace="HomeViewController"]').text == "Disable", "enabled again")
        again = inspect.append({"op": "event", "id": 3, "name": "ana-updated", "properties": {"key-path": "count", "value": 779}})
        wait_for(lambda: any(row[0] == str(again) and '"count":779' in row[2] for row in result_rows(driver)), "results after enabling")

    def hostile_name_is_text():
        inspect.append({"op": "register", "id": 9001, "parent": 2, "name": XSS_NAME})
        inspect.append({"op": "event", "id": 9001, "name": XSS_NAME, "properties": {XSS_NAME: XSS_NAME}})
        hostile = '#tree .tree-row[data-id="9001"]'
        wait_for(lambda: driver.find_element(By.CSS_SELECTOR, hostile).find_element(By.CLASS_NAME, "node-name").text == XSS_NAME,
                 "the hostile node in the tree, its name as text")
        click(driver, hostile, "the hostile node")
        wait_for(lambda: XSS_NAME in driver.find_element(By.ID, "node-events").text, "its event listed")
        assert driver.find_elements(By.CSS_SELECTOR, "main img") == [], "an <img> element was made from data"
        time.sleep(0.3)
        no_alert(driver)
        driver.execute_script("document.getElementById('tree').scrollIntoView()")
        driver.save_screenshot(str(SHOTS / "inspector-hostile-name.png"))
        assert severe_console_errors(driver) == [], severe_console_errors(driver)

    def report_opens_from_disk():
        report = pathlib.Path(folder) / "report.html"
        subprocess.run(
            [ANNA, "report", "--events", str(DEMO / "session.ndjson"), "--module", str(DEMO / "module"), "-o", str(report),
             "--expect", str(DEMO / "session.trace.json")], check=True, capture_output=True)
        driver.get(report.as_uri())
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#tree .tree-row"), "the report's tree")
        shown = stable_tree_paths(driver)
        assert shown == live_paths, shown ^ live_paths
        assert len(result_rows(driver)) == 500
        assert driver.find_elements(By.CSS_SELECTOR, "#timeline .bar"), "no timeline"
        assert "3 passed, 0 failed" in driver.find_element(By.ID, "trace").text
        assert driver.find_element(By.ID, "connection").text.startswith("report: ")
        no_alert(driver)
        driver.save_screenshot(str(SHOTS / "report.png"))
        assert severe_console_errors(driver) == [], severe_console_errors(driver)

    def report_shows_screenshots():
        report = pathlib.Path(folder) / "gtk-report.html"
        subprocess.run(
            [ANNA, "report", "--events", str(ROOT / "fixtures" / "gtk" / "session.ndjson"), "--module", str(DEMO / "module"),
             "-o", str(report)], check=True, capture_output=True)
        driver.get(report.as_uri())
        figures = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#screens figure"), "the screenshots")
        assert len(figures) == 7, len(figures)
        # Every picture decoded (the page's policy lets data: images in, nothing else).
        sizes = driver.execute_script(
            "return [...document.querySelectorAll('#screens img')].map(i => [i.complete, i.naturalWidth, i.naturalHeight])")
        assert sizes == [[True, 360, 480]] * 7, sizes
        captions = [figure.text for figure in figures]
        assert captions[0] == "line 27 · home appeared", captions
        marked = driver.find_elements(By.CSS_SELECTOR, "#timeline .bar.screen")
        assert len(marked) == 7, len(marked)
        marked[3].click()
        chosen = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#screens figure.chosen"), "the bar's picture chosen")
        assert [figure.text for figure in chosen] == [captions[3]], [figure.text for figure in chosen]
        driver.execute_script("document.getElementById('timeline-panel').scrollIntoView()")
        driver.save_screenshot(str(SHOTS / "report-screenshots.png"))
        assert severe_console_errors(driver) == [], severe_console_errors(driver)

    try:
        scenario("the tree shows the demo's paths", tree_shows_demo)
        scenario("appending a line to a followed stream makes its result appear", appended_line_shows_result)
        scenario("disabling a namespace stops its results", disabled_namespace_stops_results)
        scenario("a node named <img src=x onerror=alert(1)> renders as text", hostile_name_is_text)
        scenario("the report file opens from disk and shows the same tree", report_opens_from_disk)
        scenario("the report shows a GTK session's screenshots at their lines", report_shows_screenshots)
    finally:
        driver.quit()
        inspect.stop()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{6 - len(failures)} passed, {len(failures)} failed; screenshots in {SHOTS}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

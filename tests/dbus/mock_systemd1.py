# SPDX-License-Identifier: MIT
# python-dbusmock template: the part of org.freedesktop.systemd1 that systemd-logind uses to
# suspend. StartUnit() answers at once with a job path and records when it was called and
# whether the daemon's state file existed at that moment; the job stays pending ("the
# machine sleeps") until the test calls FinishJobs(), which emits JobRemoved like systemd
# does after resume. Parameters: {'state_file': PATH}.
import os
import time

import dbus

from dbusmock import MOCK_IFACE

BUS_NAME = 'org.freedesktop.systemd1'
MAIN_OBJ = '/org/freedesktop/systemd1'
MAIN_IFACE = 'org.freedesktop.systemd1.Manager'
SYSTEM_BUS = True
UNIT_IFACE = 'org.freedesktop.systemd1.Unit'
# logind reads LoadState of the sleep target before it announces the sleep
SLEEP_UNITS = ('suspend.target', 'hibernate.target', 'hybrid-sleep.target', 'suspend-then-hibernate.target')


def unit_path(name):
    """systemd's bus label escaping: every byte but [A-Za-z0-9] becomes _XX."""
    return MAIN_OBJ + '/unit/' + ''.join(c if c.isascii() and c.isalnum() else f'_{ord(c):02x}' for c in name)


def load(mock, parameters):
    mock.state_file = parameters.get('state_file', '')
    mock.next_job_id = 1
    mock.start_calls = []   # (monotonic time, unit, mode, job path, state file existed)
    mock.pending_jobs = []  # (id, path, unit)
    mock.AddProperties(MAIN_IFACE, {'Version': dbus.String('252-umsrestore-test')})
    for name in SLEEP_UNITS:
        mock.AddObject(unit_path(name), UNIT_IFACE,
                       {'Id': dbus.String(name), 'LoadState': dbus.String('loaded'),
                        'ActiveState': dbus.String('inactive')}, [])


@dbus.service.method(MAIN_IFACE, in_signature='', out_signature='')
def Subscribe(self):
    pass


@dbus.service.method(MAIN_IFACE, in_signature='', out_signature='')
def Unsubscribe(self):
    pass


@dbus.service.method(MAIN_IFACE, in_signature='ss', out_signature='o')
def StartUnit(self, name, mode):
    called = time.monotonic()
    seen = bool(self.state_file) and os.path.isfile(self.state_file) and os.path.getsize(self.state_file) > 0
    job_id = self.next_job_id
    self.next_job_id += 1
    path = f'{MAIN_OBJ}/job/{job_id}'
    self.start_calls.append((called, str(name), str(mode), path, seen))
    self.pending_jobs.append((job_id, path, str(name)))
    self.EmitSignal(MAIN_IFACE, 'JobNew', 'uos', [dbus.UInt32(job_id), dbus.ObjectPath(path), name])
    return dbus.ObjectPath(path)


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='a(dsssb)')
def GetStartUnitCalls(self):
    return [(dbus.Double(t), n, m, p, dbus.Boolean(s)) for t, n, m, p, s in self.start_calls]


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='u')
def FinishJobs(self, result):
    jobs, self.pending_jobs = self.pending_jobs, []
    for job_id, path, unit in jobs:
        self.EmitSignal(MAIN_IFACE, 'JobRemoved', 'uoss',
                        [dbus.UInt32(job_id), dbus.ObjectPath(path), unit, result])
    return dbus.UInt32(len(jobs))

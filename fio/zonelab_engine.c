/*
 * ZoneLab as a fio external ioengine: ioengine=external:/path/to/zonelab-fio.so
 *
 * A thin shim over the C ABI of crates/zonelab-ffi. fio's zonemode=zbd asks the engine for the
 * zoned model, the zones and the open-zone limit, and resets write pointers through it; trims go
 * through fio's zbd bookkeeping (zbd_do_io_u_trim), as fio's own engines do. I/O goes to the
 * simulated device, which keeps the data (zonelab_retention=1, the default) so verify works. With
 * zonelab_state=FILE the device is loaded from FILE and saved back when the jobs end, so the next
 * fio process (or `zonelab zone`, `zonelab io`) sees its zones and data.
 *
 * Built against fio's own sources and config-host.h (fio/build.sh), so FIO_IOOPS_VERSION matches
 * the fio binary.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fio.h"
#include "optgroup.h"
#include "zbd.h"

/* ---- crates/zonelab-ffi ---- */
struct zl_handle;
struct zl_info {
	uint64_t capacity_bytes, zone_size_bytes, zone_capacity_bytes, nr_zones, lba_bytes;
	uint32_t max_open_zones, max_active_zones, open_limit;
};
struct zl_zone {
	uint64_t start, wp, len, capacity;
	uint32_t cond;
};
extern struct zl_handle *zl_open(const char *name, const char *preset, const char *config_file,
				 const char *overrides, const char *policy, const char *retention,
				 int realtime, const char *results, const char *state, char *err,
				 size_t err_len);
extern int zl_bind_file(struct zl_handle *h, const char *filename, char *err, size_t err_len);
extern int zl_info(struct zl_handle *h, struct zl_info *out);
extern int zl_submit(struct zl_handle *h, int op, uint64_t offset, uint64_t len, void *buf,
		     uint64_t *done_ns);
extern uint64_t zl_now(struct zl_handle *h);
extern void zl_advance(struct zl_handle *h, uint64_t t_ns);
extern int zl_report_zones(struct zl_handle *h, uint64_t offset, struct zl_zone *zones,
			   uint32_t n);
extern int zl_close(struct zl_handle *h, char *err, size_t err_len);
extern void zl_delivered(struct zl_handle *h, uint64_t done_ns);
extern uint64_t zl_lateness(struct zl_handle *h, char *buf, size_t len);

#define ZL_READ 0
#define ZL_WRITE 1
#define ZL_RESET 2
#define ZL_TRIM 3

/* ---- options ---- */
struct zl_options {
	void *pad; /* fio needs off1 != 0 */
	char *device;
	char *preset;
	char *config;
	char *set;
	char *policy;
	char *retention;
	char *time;
	char *results;
	char *state;
};

static struct fio_option options[] = {
	{
		.name = "zonelab_device",
		.lname = "ZoneLab device name",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct zl_options, device),
		.def = "zonelab0",
		.help = "Name of the simulated device; jobs naming the same device share it",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "zonelab_preset",
		.lname = "ZoneLab preset",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct zl_options, preset),
		.help = "Device preset (see `zonelab presets list`; default rezns-40g, or the device "
			"in zonelab_state)",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "zonelab_config",
		.lname = "ZoneLab experiment file",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct zl_options, config),
		.help = "An experiment TOML file giving the device and firmware (instead of a preset)",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "zonelab_set",
		.lname = "ZoneLab overrides",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct zl_options, set),
		.help = "Overrides, comma-separated: device.zones.max_open_zones=8,firmware.t_free=2",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "zonelab_policy",
		.lname = "ZoneLab firmware policy",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct zl_options, policy),
		.help = "Firmware policy: synchronous, mapping, preemptive or renewable",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "zonelab_retention",
		.lname = "ZoneLab data retention",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct zl_options, retention),
		.help = "1: keep written data so reads (and verify) return it (default, unless "
			"zonelab_config, zonelab_set or zonelab_state says otherwise); 0: do not",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "zonelab_time",
		.lname = "ZoneLab time mode",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct zl_options, time),
		.def = "virtual",
		.help = "virtual: as fast as possible (fio's latencies mean nothing; ZoneLab's are in the "
			"results); realtime: each I/O completes when the model says",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "zonelab_results",
		.lname = "ZoneLab results directory",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct zl_options, results),
		.help = "Where the last job to finish writes ZoneLab's results (as `zonelab run`)",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "zonelab_state",
		.lname = "ZoneLab device state file",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct zl_options, state),
		.help = "A device state file: the device is loaded from it if it exists and saved to it "
			"when the jobs end (zones, data, firmware state, clock)",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = NULL,
	},
};

/* ---- per-job state ---- */
struct zl_pending {
	struct io_u *io_u;
	uint64_t done_ns;
};

struct zl_job {
	struct zl_handle *h;
	int realtime;
	struct zl_info info;
	struct zl_pending *pending; /* in flight, unordered */
	unsigned int npending;
	struct io_u **events; /* reaped by the last getevents */
	unsigned int nevents;
};

/*
 * The job's device. fio may ask for the file size and the zones before it calls ->init, so the
 * device is opened by whichever comes first.
 */
static struct zl_job *open_job(struct thread_data *td)
{
	struct zl_options *o = td->eo;
	struct zl_job *j;
	char err[512] = "";
	unsigned int depth = td->o.iodepth ? td->o.iodepth : 1;

	if (!td->o.use_thread) {
		log_err("zonelab: set thread=1. Simulated devices live in the fio process and are shared "
			"by name between jobs; with processes every job would get its own device.\n");
		return NULL;
	}
	if (o->time && strcmp(o->time, "virtual") && strcmp(o->time, "realtime")) {
		log_err("zonelab: zonelab_time=%s: use virtual or realtime\n", o->time);
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->realtime = o->time && !strcmp(o->time, "realtime");
	j->h = zl_open(o->device, o->preset, o->config, o->set, o->policy, o->retention,
		       j->realtime, o->results, o->state, err, sizeof(err));
	if (!j->h) {
		log_err("zonelab: %s\n", err);
		free(j);
		return NULL;
	}
	zl_info(j->h, &j->info);
	j->pending = calloc(depth, sizeof(*j->pending));
	j->events = calloc(depth, sizeof(*j->events));
	if (!j->pending || !j->events) {
		free(j->pending);
		free(j->events);
		zl_close(j->h, err, sizeof(err));
		free(j);
		return NULL;
	}
	td->io_ops_data = j;
	return j;
}

static inline struct zl_job *job_of(struct thread_data *td)
{
	return td->io_ops_data ? td->io_ops_data : open_job(td);
}

static int zl_init(struct thread_data *td)
{
	return job_of(td) ? 0 : 1;
}

static void zl_cleanup(struct thread_data *td)
{
	struct zl_job *j = td->io_ops_data;
	char err[512] = "";

	if (!j)
		return;
	if (j->realtime && zl_lateness(j->h, err, sizeof(err)))
		log_info("zonelab: %s\n", err);
	err[0] = 0;
	if (zl_close(j->h, err, sizeof(err))) {
		/* What the run measured or the device's state would be lost: the job fails. */
		log_err("zonelab: %s\n", err);
		td_vmsg(td, EIO, err, "zonelab results or state");
	}
	free(j->pending);
	free(j->events);
	free(j);
	td->io_ops_data = NULL;
}

/* A status from zl_submit as text: the NVMe status, or the errno when it is negative. */
static void log_status(const char *what, uint64_t offset, uint64_t len, int status)
{
	if (status < 0)
		log_err("zonelab: %s at %llu+%llu failed: %s\n", what, (unsigned long long)offset,
			(unsigned long long)len, strerror(-status));
	else
		log_err("zonelab: %s at %llu+%llu failed: NVMe status SCT %xh SC %02Xh\n", what,
			(unsigned long long)offset, (unsigned long long)len, (status >> 8) & 0xff,
			status & 0xff);
}

/*
 * NVMe status to errno as Linux's NVMe driver maps them (nvme_error_status, as the ublk front end
 * does), so fio sees what it would see on a real ZNS SSD: Invalid Field and the like are "not
 * supported", LBA Out of Range a target error, the two resource limits their own errors, and
 * every other zone error a plain I/O error (which fio's zbd code recognises as an unaligned write).
 */
static int zl_errno(int status)
{
	int sct = (status >> 8) & 0xff, sc = status & 0xff;

	if (status < 0)
		return -status;
	if (sct == 0 && (sc == 0x01 || sc == 0x02 || sc == 0x0B))
		return EOPNOTSUPP;
	if (sct == 0 && sc == 0x80)
		return EREMOTEIO;
	if (sct == 1 && sc == 0xBD) /* Too Many Active Zones */
		return EOVERFLOW;
	if (sct == 1 && sc == 0xBE) /* Too Many Open Zones */
		return ETOOMANYREFS;
	return EIO;
}

/*
 * Resets each zone in [offset, offset + length); `done` gets the last completion. Returns 0 or the
 * first failing status (logged).
 */
static int reset_zones(struct zl_job *j, uint64_t offset, uint64_t length, uint64_t *done)
{
	for (uint64_t z = offset; z < offset + length; z += j->info.zone_size_bytes) {
		int status = zl_submit(j->h, ZL_RESET, z, j->info.zone_size_bytes, NULL, done);
		if (status) {
			log_status("zone reset", z, j->info.zone_size_bytes, status);
			return status;
		}
	}
	return 0;
}

static enum fio_q_status zl_queue(struct thread_data *td, struct io_u *io_u)
{
	struct zl_job *j = job_of(td);
	uint64_t done = 0;
	int op, status;

	fio_ro_check(td, io_u);
	switch (io_u->ddir) {
	case DDIR_READ:
		op = ZL_READ;
		break;
	case DDIR_WRITE:
		op = ZL_WRITE;
		break;
	case DDIR_TRIM:
		if (td->o.zone_mode == ZONE_MODE_ZBD) {
			/*
			 * As fio's own engines: fio resets the zone through ->reset_wp and moves
			 * its own write pointer, so later writes and verify know.
			 */
			status = zbd_do_io_u_trim(td, io_u);
			if (status < 0)
				io_u->error = -status;
			else if (status != io_u_completed)
				io_u->error = EINVAL;
			return FIO_Q_COMPLETED;
		}
		/* Without zbd: a trim of whole zones resets them, anything else deallocates. */
		if (io_u->offset % j->info.zone_size_bytes || io_u->xfer_buflen % j->info.zone_size_bytes)
			op = ZL_TRIM;
		else {
			status = reset_zones(j, io_u->offset, io_u->xfer_buflen, &done);
			if (status) {
				io_u->error = zl_errno(status);
				return FIO_Q_COMPLETED;
			}
			goto queued;
		}
		break;
	case DDIR_SYNC:
	case DDIR_DATASYNC:
	case DDIR_SYNC_FILE_RANGE:
		/* Completed writes are durable in the model. */
		return FIO_Q_COMPLETED;
	default:
		io_u->error = EINVAL;
		return FIO_Q_COMPLETED;
	}
	status = zl_submit(j->h, op, io_u->offset, io_u->xfer_buflen,
			   op == ZL_TRIM ? NULL : io_u->xfer_buf, &done);
	if (status) {
		log_status(op == ZL_READ ? "read" : op == ZL_WRITE ? "write" : "trim", io_u->offset,
			   io_u->xfer_buflen, status);
		io_u->error = zl_errno(status);
		return FIO_Q_COMPLETED;
	}
queued:
	j->pending[j->npending].io_u = io_u;
	j->pending[j->npending].done_ns = done;
	j->npending++;
	return FIO_Q_QUEUED;
}

static void sleep_until(struct zl_job *j, uint64_t t_ns)
{
	uint64_t now = zl_now(j->h);

	while (now < t_ns) {
		uint64_t gap = t_ns - now;
		if (gap > 200000) {
			struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)(gap - 100000) };
			if (gap - 100000 >= 1000000000ULL) {
				ts.tv_sec = (gap - 100000) / 1000000000ULL;
				ts.tv_nsec = (gap - 100000) % 1000000000ULL;
			}
			nanosleep(&ts, NULL);
		}
		now = zl_now(j->h);
	}
}

static int cmp_done(const void *a, const void *b)
{
	const struct zl_pending *x = a, *y = b;
	return x->done_ns < y->done_ns ? -1 : x->done_ns > y->done_ns;
}

/* The n-th smallest completion time among the pending (n counts from 1). */
static uint64_t nth_done(struct zl_job *j, unsigned int n)
{
	uint64_t best = UINT64_MAX;
	unsigned int i;

	if (n == 1) {
		for (i = 0; i < j->npending; i++)
			if (j->pending[i].done_ns < best)
				best = j->pending[i].done_ns;
		return best;
	}
	qsort(j->pending, j->npending, sizeof(*j->pending), cmp_done);
	return j->pending[n - 1].done_ns;
}

/*
 * Reap at least `min` completions, earliest first. Virtual time: the device clock jumps to the
 * min-th completion. Realtime: wait until that completion's modelled time has passed.
 */
static int zl_getevents(struct thread_data *td, unsigned int min, unsigned int max,
			const struct timespec *t)
{
	struct zl_job *j = job_of(td);
	uint64_t until;
	unsigned int k = 0, i;

	j->nevents = 0;
	if (!j->npending)
		return 0;
	if (min == 0)
		min = 1;
	if (min > j->npending)
		min = j->npending;
	until = nth_done(j, min);
	if (j->realtime) {
		sleep_until(j, until);
		uint64_t now = zl_now(j->h);
		if (now > until)
			until = now;
	} else {
		zl_advance(j->h, until);
	}
	for (i = 0; i < j->npending; i++) {
		if (k < max && j->pending[i].done_ns <= until) {
			if (j->realtime)
				zl_delivered(j->h, j->pending[i].done_ns);
			j->events[k++] = j->pending[i].io_u;
		} else {
			j->pending[i - k] = j->pending[i];
		}
	}
	j->npending -= k;
	j->nevents = k;
	return k;
}

static struct io_u *zl_event(struct thread_data *td, int event)
{
	struct zl_job *j = td->io_ops_data;
	return j->events[event];
}

static int zl_open_file(struct thread_data *td, struct fio_file *f)
{
	f->filetype = FIO_TYPE_CHAR;
	return 0;
}

static int zl_close_file(struct thread_data *td, struct fio_file *f)
{
	return 0;
}

static int zl_get_file_size(struct thread_data *td, struct fio_file *f)
{
	struct zl_job *j = job_of(td);
	char err[512] = "";

	/* A character device, so zonemode=zbd asks this engine for the zones. */
	f->filetype = FIO_TYPE_CHAR;
	if (!j)
		return EINVAL;
	if (zl_bind_file(j->h, f->file_name, err, sizeof(err))) {
		log_err("zonelab: %s\n", err);
		return EINVAL;
	}
	f->real_file_size = j->info.capacity_bytes;
	fio_file_set_size_known(f);
	return 0;
}

static int zl_get_zoned_model(struct thread_data *td, struct fio_file *f,
			      enum zbd_zoned_model *model)
{
	*model = ZBD_HOST_MANAGED;
	return 0;
}

static int zl_report_zones_op(struct thread_data *td, struct fio_file *f, uint64_t offset,
			      struct zbd_zone *zbdz, unsigned int nr_zones)
{
	struct zl_job *j = job_of(td);
	struct zl_zone *zones;
	int n, i;

	if (!j)
		return -EINVAL;
	zones = calloc(nr_zones, sizeof(*zones));
	if (!zones)
		return -ENOMEM;
	n = zl_report_zones(j->h, offset, zones, nr_zones);
	for (i = 0; i < n; i++) {
		zbdz[i].start = zones[i].start;
		zbdz[i].wp = zones[i].wp;
		zbdz[i].len = zones[i].len;
		zbdz[i].capacity = zones[i].capacity;
		zbdz[i].type = ZBD_ZONE_TYPE_SWR;
		zbdz[i].cond = zones[i].cond;
	}
	free(zones);
	return n < 0 ? -EIO : n;
}

static int zl_reset_wp(struct thread_data *td, struct fio_file *f, uint64_t offset,
		       uint64_t length)
{
	struct zl_job *j = job_of(td);
	uint64_t done = 0;
	int status;

	if (!j)
		return -EINVAL;
	status = reset_zones(j, offset, length, &done);
	if (status)
		return -zl_errno(status);
	/* fio issues resets synchronously: the device clock moves past the erase. */
	if (j->realtime)
		sleep_until(j, done);
	else
		zl_advance(j->h, done);
	return 0;
}

static int zl_get_max_open_zones(struct thread_data *td, struct fio_file *f,
				 unsigned int *max_open_zones)
{
	struct zl_job *j = job_of(td);

	if (!j)
		return -EINVAL;
	/*
	 * The zones a host can keep open for writing: fio 3.33 asks only for an open limit, so a
	 * device with only an active limit (or a lower one) must report that.
	 */
	*max_open_zones = j->info.open_limit;
	return 0;
}

struct ioengine_ops ioengine = {
	.name = "zonelab",
	.version = FIO_IOOPS_VERSION,
	.flags = FIO_DISKLESSIO | FIO_NOEXTEND | FIO_NODISKUTIL,
	.init = zl_init,
	.cleanup = zl_cleanup,
	.queue = zl_queue,
	.getevents = zl_getevents,
	.event = zl_event,
	.open_file = zl_open_file,
	.close_file = zl_close_file,
	.get_file_size = zl_get_file_size,
	.get_zoned_model = zl_get_zoned_model,
	.report_zones = zl_report_zones_op,
	.reset_wp = zl_reset_wp,
	.get_max_open_zones = zl_get_max_open_zones,
	.options = options,
	.option_struct_size = sizeof(struct zl_options),
};

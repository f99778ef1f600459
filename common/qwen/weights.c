/* weights.c — opening a model folder and finding its tensors (see weights.h). */
#include "weights.h"

#include <cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "workbook/jsonstr.h"

#ifndef REPO_ROOT
#define REPO_ROOT "."
#endif

static const char TEXT_PREFIX[] = "model.language_model.";

const char *ckpt_text_name(const char *stored) {
    static const char *const skipped[] = {"model.visual.", "mtp.", "visual."};
    for (size_t i = 0; i < ARRAY_LEN(skipped); i++)
        if (strncmp(stored, skipped[i], strlen(skipped[i])) == 0) return NULL;
    if (strncmp(stored, TEXT_PREFIX, strlen(TEXT_PREFIX)) == 0) return stored + strlen(TEXT_PREFIX);
    if (strncmp(stored, "model.", 6) == 0) return stored + 6; /* text-only layout */
    return stored;                                            /* lm_head.weight */
}

const Tensor *ckpt_find(const Checkpoint *ck, const char *name) {
    int64_t i;
    return strmap_get(&ck->names, name, &i) ? ck->refs[i] : NULL;
}

/* Registers every text tensor of one shard under its short name. */
static bool register_shard(Checkpoint *ck, const SafeTensors *st, Error *err) {
    if (st->count > INT_MAX - ck->n_refs)
        return error_set(err, "%s: more tensors in the checkpoint than this reader can count", st->path);
    ck->refs = xrealloc(ck->refs, (size_t)(ck->n_refs + st->count) * sizeof *ck->refs);
    for (int i = 0; i < st->count; i++) {
        const Tensor *t = &st->tensors[i];
        const char *name = ckpt_text_name(t->name);
        if (!name) {
            ck->n_skipped++;
            continue;
        }
        if (!strmap_put(&ck->names, name, ck->n_refs))
            return error_set(err, "%s: tensor '%s' is a second copy of %s", st->path, t->name, name);
        ck->refs[ck->n_refs++] = t;
    }
    return true;
}

/* The open shard stored under this file name, or NULL. */
static const SafeTensors *shard_named(const Checkpoint *ck, const char *file) {
    int64_t i;
    return strmap_get(&ck->shard_index, file, &i) ? &ck->shards[i] : NULL;
}

static bool open_shard(Checkpoint *ck, const char *file, Error *err) {
    if (shard_named(ck, file)) return true; /* already open */
    if (!*file || strchr(file, '/') || strcmp(file, ".") == 0 || strcmp(file, "..") == 0)
        return error_set(err, "%s/model.safetensors.index.json: shard name '%s' must be a plain file name",
                         ck->dir, file);
    char *path = path_join(ck->dir, file);
    bool missing;
    const char *why = file_problem(path, &missing);
    if (why) {
        if (missing)
            error_set(err, "%s/model.safetensors.index.json names shard %s, which is missing from %s",
                      ck->dir, file, ck->dir);
        else
            error_set(err, "%s/model.safetensors.index.json names shard %s, but %s %s", ck->dir, file, path,
                      why);
        free(path);
        return false;
    }
    ck->shards = xrealloc(ck->shards, (size_t)(ck->n_shards + 1) * sizeof *ck->shards);
    bool ok = st_open(&ck->shards[ck->n_shards], path, err);
    free(path);
    if (!ok) return false;
    strmap_put(&ck->shard_index, file, ck->n_shards);
    ck->n_shards++;
    return register_shard(ck, &ck->shards[ck->n_shards - 1], err);
}

/* Follows model.safetensors.index.json: opens each shard it names once, and checks
 * that every tensor it lists is really in the shard it names. */
static bool open_indexed(Checkpoint *ck, const char *index_path, Error *err) {
    size_t len;
    char *json = read_file(index_path, &len, err);
    if (!json) return false;
    cJSON *root = json_parse_document(json, len, index_path, err);
    free(json);
    if (!root) return false;
    bool ok = true;
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(root, "weight_map");
    const cJSON *e;
    if (!cJSON_IsObject(map))
        ok = error_set(err, "%s: no \"weight_map\" object", index_path);
    else if (!map->child)
        ok = error_set(err, "%s: \"weight_map\" is empty", index_path);
    if (ok) cJSON_ArrayForEach(e, map) {
            if (!cJSON_IsString(e)) {
                ok = error_set(err, "%s: weight_map entry %s is not a file name", index_path, e->string);
                break;
            }
            if (!(ok = open_shard(ck, e->valuestring, err))) break;
        }
    if (ok) cJSON_ArrayForEach(e, map) {
            const SafeTensors *shard = shard_named(ck, e->valuestring);
            if (!st_find(shard, e->string)) {
                ok = error_set(err, "%s says tensor %s is in %s, but that shard does not contain it",
                               index_path, e->string, e->valuestring);
                break;
            }
        }
    cJSON_Delete(root);
    return ok;
}

/* ---- the tensors a part expects ----------------------------------------------- */

const Tensor *ckpt_expect(const Checkpoint *ck, const char *name, int ndim, const int64_t *shape,
                          Error *err) {
    const Tensor *t = ckpt_find(ck, name);
    if (!t) {
        error_set(err, "%s: tensor %s is missing from the checkpoint", ck->dir, name);
        return NULL;
    }
    bool same = t->ndim == ndim;
    for (int d = 0; same && d < ndim; d++) same = t->shape[d] == shape[d];
    if (!same) {
        char got[96], want[96];
        Tensor wanted = {.ndim = ndim}; /* the shape config.json implies, written as shape_str writes */
        for (int d = 0; d < ndim; d++) wanted.shape[d] = shape[d];
        return error_set(err, "%s: tensor %s has shape %s, but config.json implies %s", t->file, name,
                         shape_str(t, got, sizeof got), shape_str(&wanted, want, sizeof want)),
               NULL;
    }
    return t;
}

const Tensor *ckpt_layer_tensor(const Checkpoint *ck, int layer, const char *suffix, int ndim,
                                const int64_t *shape, Error *err) {
    char name[256];
    snprintf(name, sizeof name, "layers.%d.%s", layer, suffix);
    return ckpt_expect(ck, name, ndim, shape, err);
}

bool ckpt_open(Checkpoint *ck, const char *dir, Error *err) {
    memset(ck, 0, sizeof *ck);
    strmap_init(&ck->names);
    strmap_init(&ck->shard_index);
    ck->dir = xstrdup(dir);
    char *config = path_join(dir, "config.json");
    char *index = path_join(dir, "model.safetensors.index.json");
    char *single = path_join(dir, "model.safetensors");
    bool ok, no_index = false, no_single = false;
    const char *why_dir = dir_problem(dir, NULL), *why_index = NULL, *why_single = NULL;
    if (why_dir)
        ok = error_set(err, "%s %s", dir, why_dir);
    else if (!cfg_load(&ck->config, config, err))
        ok = false;
    else if (!(why_index = file_problem(index, &no_index)))
        ok = open_indexed(ck, index, err);
    else if (!no_index) /* there, but a folder, a pipe, a link loop, unreadable ... */
        ok = error_set(err, "%s %s", index, why_index);
    else if (!(why_single = file_problem(single, &no_single)))
        ok = open_shard(ck, "model.safetensors", err);
    else if (!no_single)
        ok = error_set(err, "%s %s", single, why_single);
    else
        ok = error_set(err, "%s has neither model.safetensors.index.json nor model.safetensors", dir);
    free(config);
    free(index);
    free(single);
    for (int i = 0; ok && i < ck->n_shards && !ck->synthetic; i++)
        ck->synthetic = st_metadata(&ck->shards[i], SYNTHETIC_MARK);
    if (!ok) ckpt_close(ck);
    return ok;
}

void ckpt_release_pages(const Checkpoint *ck, const Tensor *t) {
    for (int i = 0; i < ck->n_shards; i++)
        if (st_release_pages(&ck->shards[i], t)) return;
}

int64_t ckpt_hold(Checkpoint *ck, const void *begin, const void *end) {
    int64_t moved = 0; /* a range lies in one shard's mapping at most: the others move nothing */
    for (int i = 0; i < ck->n_shards; i++) moved += st_hold(&ck->shards[i], begin, end);
    return moved;
}

void ckpt_close(Checkpoint *ck) {
    for (int i = 0; i < ck->n_shards; i++) st_close(&ck->shards[i]);
    free(ck->shards);
    free(ck->refs);
    strmap_free(&ck->names);
    strmap_free(&ck->shard_index);
    free(ck->dir);
    memset(ck, 0, sizeof *ck);
}

/* ---- finding the model -------------------------------------------------------- */

static bool has_config(const char *dir) {
    char *p = path_join(dir, "config.json");
    bool yes = is_file(p);
    free(p);
    return yes;
}

/* A revision name from refs/main that can only name a folder inside snapshots/: not
 * empty, no '/', not "." or "..", no control characters. A hash, in practice. */
static bool plain_revision(const char *ref) {
    if (!*ref || strcmp(ref, ".") == 0 || strcmp(ref, "..") == 0) return false;
    for (const unsigned char *p = (const unsigned char *)ref; *p; p++)
        if (*p == '/' || *p < 0x20 || *p == 0x7f) return false;
    return true;
}

/* The snapshot folder of the Hugging Face cache, or NULL. */
static char *hf_snapshot(const char *hub) {
    char *repo = path_join(hub, "models--Qwen--Qwen3.5-0.8B");
    char *ref_path = path_join(repo, "refs/main");
    char *snapshots = path_join(repo, "snapshots");
    char *found = NULL;
    char *ref = read_file(ref_path, NULL, NULL);
    if (ref) { /* refs/main holds the revision hash of the current snapshot */
        ref[strcspn(ref, " \r\n")] = '\0';
        char *dir =
            plain_revision(ref) ? path_join(snapshots, ref) : NULL; /* never a path out of the cache */
        if (dir && has_config(dir))
            found = dir;
        else
            free(dir);
        free(ref);
    }
    DIR *d = found ? NULL : opendir(snapshots);
    for (struct dirent *e; d && !found && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char *dir = path_join(snapshots, e->d_name);
        if (has_config(dir))
            found = dir;
        else
            free(dir);
    }
    if (d) closedir(d);
    free(repo);
    free(ref_path);
    free(snapshots);
    return found;
}

/* A folder named by --model or $QWEN35_MODEL (who: "--model X", "QWEN35_MODEL=X"):
 * true when it holds a config.json, else one line saying what is wrong with it. */
static bool given_folder(const char *who, const char *dir, Error *err) {
    bool missing;
    const char *why = dir_problem(dir, &missing);
    if (why && missing) return error_set(err, "%s: no config.json there: %s %s", who, dir, why);
    if (why) return error_set(err, "%s: %s %s", who, dir, why);
    char *config = path_join(dir, "config.json");
    why = file_problem(config, &missing);
    if (why && missing)
        error_set(err, "%s: no config.json there (is it the downloaded model folder?)", who);
    else if (why)
        error_set(err, "%s: %s %s", who, config, why);
    free(config);
    return why == NULL;
}

char *model_find(const char *flag_value, const char **source, Error *err) {
    const char *src = NULL;
    char *found = NULL;
    char who[64 + PATH_MAX];
    if (flag_value) {
        if (!*flag_value) /* not the current folder by accident */
            return error_set(err, "--model was given an empty folder name (say --model . for this folder)"),
                   NULL;
        snprintf(who, sizeof who, "--model %s", flag_value);
        if (!given_folder(who, flag_value, err)) return NULL;
        found = xstrdup(flag_value), src = "--model";
    }
    const char *env = getenv("QWEN35_MODEL");
    if (!found && env && *env) {
        snprintf(who, sizeof who, "QWEN35_MODEL=%s", env);
        if (!given_folder(who, env, err)) return NULL;
        found = xstrdup(env), src = "$QWEN35_MODEL";
    }
    char *local = path_join(REPO_ROOT, "models/Qwen3.5-0.8B");
    if (!found && has_config(local)) found = xstrdup(local), src = "models/Qwen3.5-0.8B";

    char *hub;
    const char *hub_cache = getenv("HF_HUB_CACHE"), *hf_home = getenv("HF_HOME"), *home = getenv("HOME");
    if (hub_cache && *hub_cache)
        hub = xstrdup(hub_cache);
    else if (hf_home && *hf_home)
        hub = path_join(hf_home, "hub");
    else {
        char *base = path_join(home && *home ? home : ".", ".cache/huggingface");
        hub = path_join(base, "hub");
        free(base);
    }
    if (!found && (found = hf_snapshot(hub))) src = "Hugging Face cache";
    if (!found)
        error_set(err,
                  "no Qwen3.5-0.8B checkpoint found. Looked at:\n"
                  "  --model DIR          (not given)\n"
                  "  $QWEN35_MODEL        (%s)\n"
                  "  %s\n"
                  "  %s/models--Qwen--Qwen3.5-0.8B/snapshots/*\n" MODEL_DOWNLOAD_HINT,
                  env && *env ? env : "not set", local, hub);
    free(local);
    free(hub);
    if (source) *source = src;
    return found;
}

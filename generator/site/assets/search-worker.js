/* papersite: one prebuilt lunr index, in shards, loaded and searched off the main thread.
 * papersite-engine.js starts one worker per index (search/index-*.json.gz first, then
 * search/abstracts-*.json.gz, whose worker also has the abstracts' texts: search-abstracts.json.gz
 * for phrases, search/texts-*.json.gz for snippets), the
 * texts), then asks one question at a time, each with an id the answer repeats:
 *   {type: "query", id, words, prefix, phrases, schema} -> {type: "hits", id, words: [{refs, scores, fields, stop}], phrases, timing}
 *     one lunr search per word, so papersite-ranking.js can count how many of the
 *     query's words each paper matches and in which fields (fieldBits);
 *     phrases: for each quoted phrase, the papers whose text holds it (null
 *     without texts);
 *   {type: "near", id, words} -> the same, for the words at one edit (typos: asked
 *     only for words that no index holds, of 5+ letters);
 *   {type: "texts", id, refs} -> {type: "texts", id, texts}: abstracts for snippets;
 *   {type: "exact", id, refs, words, prefix, phrases} -> the query's hits, the weights of those papers
 *     that a common term left unknown read from their texts first (a hit's "bounds", where present, is
 *     what those may still add to its score; search_index.py COMMON_PAPERS);
 *   {type: "warm", words, prefix} (no answer): a query is being typed, load its shards (those of
 *     its last word as a prefix too, unless prefix is false).
 * A word is answered from the shards its terms are in (generator/site/search_index.py
 * says why that gives lunr's own scores: the manifest, <index>-shards.json.gz, says
 * where each shard begins): the shard of its stem and, while it is typed, those of
 * the terms it begins; each fetched once and turned, with the others a word needs,
 * into a lunr.Index, whose terms' postings are weighed when a query first reads them
 * and scored by scoredHits (lunr's arithmetic, without lunr's objects). Near spellings (one edit) are looked up among the terms that
 * begin with the word's first or second letter. No other shard is fetched: loading every shard while the reader
 * read (as this did) cost the whole index's bytes, megabytes at 100k papers, for
 * words nobody typed; the words being typed are warmed instead ("warm").
 * schema: {fields} (papersite-core.js Schema.forWorker): the field letters whose bits
 * "fields" reports. Where workers are unavailable, papersite-engine.js loads this file as a plain script
 * and calls papersiteIndex.open / .answer itself. */
(function (scope) {
  "use strict";

  var FUZZY_MIN = 5; // one typo is tolerated in words of this many letters or more
  // A word being typed counts as a prefix from this many letters: "co*" stands for thousands of
  // terms at 11,672 papers, and scoring them all took up to a second per keystroke.
  var PREFIX_MIN = 3;
  // The store's schema (search.py store_schema), as each question brings it: the field letters in
  // bit order (bit i of a hit's fields: it matched in field i).
  function fieldBits(state) {
    var bits = {};
    state.schema.fields.forEach(function (letter, i) { bits[letter] = 1 << i; });
    return bits;
  }

  function clock() { return scope.performance.timeOrigin + scope.performance.now(); }

  // The search files are stored gzipped (generator/site/search.py, gzipped): inflated here.
  function getJSON(url) {
    return scope.fetch(url).then(function (r) {
      if (!r.ok) throw new Error(url + ": " + r.status);
      return new Response(r.body.pipeThrough(new scope.DecompressionStream("gzip"))).json();
    });
  }

  /* Python's round(x, 3), which lunr.py applies to every weight: the decimal nearest the double's
   * exact value, a tie to the even last digit (toFixed rounds a tie up; a tie is exactly an odd
   * number of sixteenths, the only halves of thousandths a double holds). */
  function round3(x) {
    // Away from a half thousandth, the nearest thousandth is Math.round's: n / 1000 is the double
    // nearest n/1000, as parsing toFixed's digits gives (toFixed costs a string per posting)
    var thousandths = x * 1000, below = Math.floor(thousandths), off = thousandths - below - 0.5;
    if (off > 1e-6 || off < -1e-6) return (off > 0 ? below + 1 : below) / 1000;
    if (Number.isInteger(x * 16) && !Number.isInteger(x * 8)) {
      var n = Math.floor(x * 1000);
      return (n % 2 === 0 ? n : n + 1) / 1000;
    }
    return Number(x.toFixed(3));
  }

  /* A parsed shard (search_index.py's format) and the index's manifest -> the shard's part of a
   * lunr.Index: its terms (in order) and, made only when a query looks a term up (posting), the
   * term's postings (lunr's inverted index entry) and each paper field's weight of it (vectors: a
   * part of lunr's field vector, [term number, weight, ...]). A shard holds hundreds of terms and a
   * query reads a few: weighing every posting of every term when the shard came in was most of a
   * next query's time in the worker. Leaving the other terms out of the field vectors changes no
   * score: lunr scores a paper by the dot product of the query's vector (the query's terms) with the
   * field's vector, so only the query's terms' weights are read (papersite lunr.js 2.3.9
   * Vector.similarity divides by the query vector's magnitude, not the field's).
   * A weight is lunr's BM25 (lunr.Builder createFieldVectors, expression for expression) of what the
   * shard holds (the term's frequency in the field, the field's length in the paper, and the term's
   * document frequency: its postings) and the manifest (paper count, average lengths, k1, b, boosts),
   * rounded as lunr.py rounds: the weights of lunr.py's index of every paper. A term's number (lunr
   * adds a score's products in its order) is in lunr.py's order, first use: the first paper holding
   * the term, its first field there, and the term's place in it (the entry's second value). */
  function shardPart(shard, manifest) {
    var entries = Object.create(null), terms = [];
    shard.terms.forEach(function (entry) { entries[entry[0]] = entry; terms.push(entry[0]); });
    var part = { fields: manifest.fields, papers: manifest.papers, entries: entries, typed: Object.create(null), inverted: Object.create(null),
      vectors: Object.create(null), terms: terms, tokenSet: null, made: 0 };
    part.posting = function (term) { return part.typed[term] || (entries[term] ? termPosting(part, entries[term], manifest) : undefined); };
    part.lunrPosting = function (term) { return part.inverted[term] || (entries[term] ? lunrPosting(part, term) : undefined); };
    return part;
  }

  // a posting's weight: lunr's BM25 of the term's frequency in a paper's field and the field's length
  function weightOf(posting, f, tf, length) {
    var m = posting._manifest, k1 = m.k1, b = m.b;
    return round3(posting._idf * ((k1 + 1) * tf) / (k1 * (1 - b + b * (length / m.averages[f])) + tf) * m.boosts[f]);
  }

  // a field shipped as its papers alone (search_index.py COMMON_PAPERS: [0, gap, gap, ...])
  function isMembership(flat) { return flat.length > 0 && flat[0] === 0; }

  // one term's posting (see shardPart) for scoredHits, made once and kept in its part: its number
  // (_index), and for each field the papers holding it (_papers) and its weight in each (_weights)
  function termPosting(part, entry, manifest) {
    var fields = manifest.fields, papers = manifest.papers, k1 = manifest.k1;
    var frequency = 0, first = Infinity, firstField = 0, f, i, counts = [];
    for (f = 0; f < fields.length; f++) {
      var postings = entry[2 + f], count = 0, membership = isMembership(postings), head = membership ? postings[1] : postings[0];
      if (postings.length > (membership ? 1 : 0) && head - 1 < first) { first = head - 1; firstField = f; }
      if (membership) count = postings.length - 1;
      else for (i = 0; i < postings.length; i += postings[i + 1] < 0 ? 3 : 2) count++;
      counts.push(count);
      frequency += count;
    }
    var number = (first * 8 + firstField) * 1048576 + entry[1];
    var posting = { _index: number, _papers: [], _weights: [], _manifest: manifest,
      _idf: Math.log(1 + Math.abs((papers - frequency + 0.5) / (frequency + 0.5))),
      // per field: null, or which papers' weights are still unknown (1) and the most any can weigh
      _unknown: [], _bound: [] };
    for (f = 0; f < fields.length; f++) {
      var flat = entry[2 + f], paper = -1, n = 0;
      var numbers = new Int32Array(counts[f]), weights = new Float64Array(counts[f]);
      if (isMembership(flat)) {
        for (i = 1; i < flat.length; i++) { paper += flat[i]; numbers[n++] = paper; }
        // weights 0 until read from the texts (exact): a lower bound; the bound is BM25's limit, a
        // frequency without end in a field of no length, rounded up
        posting._unknown.push(new Uint8Array(counts[f]).fill(1));
        posting._bound.push(Math.ceil(posting._idf * (k1 + 1) * manifest.boosts[f] * 1000) / 1000);
      } else {
        for (i = 0; i < flat.length;) {
          paper += flat[i];
          var tf = 1, length = flat[i + 1];
          if (length < 0) { tf = -length; length = flat[i + 2]; i += 3; } else { i += 2; }
          numbers[n] = paper; weights[n++] = weightOf(posting, f, tf, length);
        }
        posting._unknown.push(null);
        posting._bound.push(0);
      }
      posting._papers.push(numbers); posting._weights.push(weights);
    }
    part.typed[entry[0]] = posting;
    return posting;
  }

  function indexIn(sorted, value) {
    var lo = 0, hi = sorted.length - 1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (sorted[mid] === value) return mid;
      if (sorted[mid] < value) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
  }

  /* The unknown weights of the given papers in every posting read so far, made exact from their
   * texts: each text's terms as the build indexed it (core.indexedTerms), the term's frequency there
   * and the field's length, weighed as the build's postings are. The postings keep them, so a paper's
   * score is then lunr's to the last bit (scoredHits sums in lunr's order). */
  function makeExact(state, refs) {
    return someTexts(state, refs).then(function (found) {
      var core = scope.papersite.core, terms = refs.map(function (ref, k) {
        var all = core.indexedTerms(scope.lunr, found[k], state.schema.abstractWords), counts = new Map();
        all.forEach(function (t) { counts.set(t, (counts.get(t) || 0) + 1); });
        return { counts: counts, length: all.length };
      });
      Object.keys(state.parts).forEach(function (key) {
        var part = state.parts[key];
        Object.keys(part.typed).forEach(function (term) {
          var posting = part.typed[term];
          posting._unknown.forEach(function (unknown, f) {
            if (!unknown) return;
            refs.forEach(function (ref, k) {
              var i = indexIn(posting._papers[f], ref);
              if (i < 0 || !unknown[i]) return;
              posting._weights[f][i] = weightOf(posting, f, terms[k].counts.get(term) || 1, terms[k].length);
              unknown[i] = 0;
            });
          });
        });
      });
    });
  }

  /* The same posting as lunr.Index.query reads it (for the questions lunr answers: near spellings):
   * for each field, an object of the papers holding the term, and the term's weight in each paper
   * field's part of a vector (vectors: [term number, weight, ...]). */
  function lunrPosting(part, term) {
    var typed = part.posting(term), fields = part.fields, posting = { _index: typed._index }, vectors = part.vectors;
    for (var f = 0; f < fields.length; f++) {
      var papers = typed._papers[f], weights = typed._weights[f], docs = {};
      for (var i = 0; i < papers.length; i++) {
        docs[papers[i]] = {};
        var ref = fields[f] + "/" + papers[i];
        (vectors[ref] || (vectors[ref] = [])).push(typed._index, weights[i]);
      }
      posting[fields[f]] = docs;
    }
    part.inverted[term] = posting;
    part.made++;
    return posting;
  }

  function tokenSetOf(terms) {
    var builder = new scope.lunr.TokenSet.Builder();
    terms.forEach(function (term) { builder.insert(term); });
    builder.finish();
    return builder.root;
  }

  /* Shards' parts -> one lunr.Index of their terms: what lunr.Index.load builds from a serialised
   * index, without the copy of every weight that the serialised form holds twice. A term's posting
   * is made when lunr looks it up (shardPart), and a paper field's vector when a query asks for it
   * (lunr reads the vectors of the fields a query matched, nothing else), from each shard's part of
   * it: so an index of shards already loaded costs a few ms, and a new query costs only its new
   * shards and the postings of its terms. A vector is made again once a part has weighed more
   * terms (made: how many), so that it holds those of every term the query looked up. */
  function lunrIndex(parts) {
    var lunr = scope.lunr, tokenSet;
    if (parts.length === 1) {
      tokenSet = parts[0].tokenSet || (parts[0].tokenSet = tokenSetOf(parts[0].terms));
    } else {
      var terms = [];
      parts.forEach(function (part) { terms = terms.concat(part.terms); });
      terms.sort(); // shards hold terms in UTF-16 order; several shards together need sorting again
      tokenSet = tokenSetOf(terms);
    }
    var invertedIndex = new Proxy(Object.create(null), {
      get: function (target, term) {
        if (typeof term !== "string") return undefined;
        for (var p = 0; p < parts.length; p++) { var posting = parts[p].lunrPosting(term); if (posting) return posting; }
        return undefined;
      }
    });
    var made = Object.create(null), weighed = -1;
    var fieldVectors = new Proxy(made, {
      get: function (target, ref) {
        if (typeof ref !== "string") return undefined;
        var now = 0;
        for (var p = 0; p < parts.length; p++) now += parts[p].made;
        if (now !== weighed) { made = Object.create(null); weighed = now; }
        if (!(ref in made)) {
          var flat = [];
          parts.forEach(function (part) { var v = part.vectors[ref]; if (v) flat = flat.concat(v); });
          made[ref] = flat.length ? new lunr.Vector(sortedPairs(flat)) : undefined;
        }
        return made[ref];
      }
    });
    var index = new lunr.Index({
      invertedIndex: invertedIndex, fieldVectors: fieldVectors, tokenSet: tokenSet,
      fields: parts.length ? parts[0].fields : [], pipeline: lunr.Pipeline.load(["stemmer"])
    });
    index.papers = parts.length ? parts[0].papers : 0; // papers are numbered below this
    // a term's posting for scoredHits (shardPart)
    index.posting = function (term) {
      for (var p = 0; p < parts.length; p++) { var posting = parts[p].posting(term); if (posting) return posting; }
      return undefined;
    };
    return index;
  }

  // [number, weight, ...] in term-number order, as lunr.Vector wants its elements
  function sortedPairs(flat) {
    var sorted = true;
    for (var i = 2; i < flat.length; i += 2) if (flat[i] < flat[i - 2]) { sorted = false; break; }
    if (sorted) return flat;
    var pairs = [];
    for (var j = 0; j < flat.length; j += 2) pairs.push([flat[j], flat[j + 1]]);
    pairs.sort(function (a, b) { return a[0] - b[0]; });
    return [].concat.apply([], pairs);
  }

  /* An index in shards: shards, the start of their urls (".../search/index-": the
   * shard's number and ".json.gz" follow, or "shards.json.gz", the manifest), each
   * fetched once; textsUrl: the texts' url or null (all of them: what phrases are found
   * in), chunksUrl: the start of the urls of their chunks (what snippets are cut from:
   * search/texts-<n>.json.gz, the schema's textChunk papers each). timing collects where
   * loading went (absolute ms), for performance.measure in papersite-engine.js. lunrQuery: words
   * are searched by lunr.Index.query itself, not scoredHits (the Node test compares the two). */
  function open(shards, textsUrl, chunksUrl) {
    return { shards: shards, textsUrl: textsUrl, chunksUrl: chunksUrl, manifest: null, parsed: {}, indexes: {}, texts: null,
      chunks: {}, normal: null, timing: [], schema: null, lunrQuery: false, parts: {} };
  }

  // a promise of the manifest (search_index.py shard_files: the shards' first terms, and what weights need)
  function manifest(state) {
    if (!state.manifest) {
      var start = clock();
      state.manifest = getJSON(state.shards + "shards.json.gz").then(function (found) {
        state.timing.push(["manifest fetch+parse", start, clock()]);
        return found;
      }, function (error) {
        delete state.manifest; // asked again, it is fetched again
        throw error;
      });
    }
    return state.manifest;
  }

  // a promise of the manifest's first terms of the shards
  function starts(state) { return manifest(state).then(function (found) { return found.starts; }); }

  // a promise of a shard's part of an index (shardPart), fetched and made once
  function shardData(state, key) {
    if (!state.parsed[key]) {
      var start = clock();
      state.parsed[key] = Promise.all([getJSON(state.shards + key + ".json.gz"), manifest(state)]).then(function (got) {
        var parsed = clock(), part = shardPart(got[0], got[1]);
        state.parts[key] = part; // (makeExact visits every posting read so far)
        state.timing.push(["shard " + key + " fetch+parse", start, parsed], ["shard " + key + " part", parsed, clock()]);
        return part;
      }, function (error) {
        delete state.parsed[key]; // asked again, it is fetched again
        throw error;
      });
    }
    return state.parsed[key];
  }

  // a promise of one lunr.Index of these shards (numbers, ascending), kept for each set: the
  // words of a query being typed ask the same sets again and again
  function shardsIndex(state, keys) {
    var name = keys.join(",");
    if (!state.indexes[name]) {
      state.indexes[name] = Promise.all(keys.map(function (key) { return shardData(state, key); })).then(function (parts) {
        var start = clock(), index = lunrIndex(parts);
        state.timing.push(["shards " + name + " index", start, clock()]);
        return index;
      }, function (error) {
        delete state.indexes[name];
        throw error;
      });
    }
    return state.indexes[name];
  }

  function unique(numbers) {
    return numbers.filter(function (n, i) { return numbers.indexOf(n) === i; }).sort(function (a, b) { return a - b; });
  }

  // a promise of the shards a word needs: its stem's, and while it is typed those of the terms it begins
  function wordShards(state, word, prefix) {
    var core = scope.papersite.core;
    return starts(state).then(function (first) {
      var keys = [core.shardOf(first, core.stem(scope.lunr, word))];
      if (prefix && word.length >= PREFIX_MIN) keys = keys.concat(core.shardsOfPrefix(first, word));
      return unique(keys);
    });
  }

  // a promise of the shards a word at one edit may be in: the terms that begin with its first or
  // second letter (an edit of the first letter, or the first two swapped)
  function nearShards(state, word) {
    var core = scope.papersite.core;
    return starts(state).then(function (first) {
      return unique(core.shardsOfPrefix(first, word.charAt(0)).concat(core.shardsOfPrefix(first, word.charAt(1))));
    });
  }

  function texts(state) {
    if (!state.textsUrl) return Promise.resolve(null);
    if (!state.texts) state.texts = getJSON(state.textsUrl);
    return state.texts;
  }

  // a promise of these papers' texts, from the chunks they are in ("" where there is none)
  function someTexts(state, refs) {
    var size = state.schema && state.schema.textChunk;
    if (!state.chunksUrl || !size) return Promise.resolve(refs.map(function () { return ""; }));
    return Promise.all(refs.map(function (ref) {
      var n = Math.floor(ref / size);
      if (!state.chunks[n]) state.chunks[n] = getJSON(state.chunksUrl + n + ".json.gz");
      return state.chunks[n].then(function (chunk) { return chunk[ref - n * size] || ""; });
    }));
  }

  // " words of the text ": what phrases are found in (papersite-core.js normal)
  function normal(text) { return scope.papersite.core.normal(text); }

  function isStopWord(word) { return scope.papersite.core.isStopWord(scope.lunr, word); }

  /* One word -> the papers that hold it (refs), its lunr score in each and the
   * fields it matched there (bits). The word is stemmed as the index was; while
   * it is being typed (prefix) it also counts as the start of a longer word.
   * A long word that no index holds is looked up at one edit (a typo) in a
   * second question ("near"). */
  function hitsOf(state, index, build) {
    var FIELD_BITS = fieldBits(state);
    var hits = [];
    // (a query without clauses would match every paper)
    if (build) { try { hits = index.query(build); } catch (error) { hits = []; } }
    var refs = new Int32Array(hits.length), scores = new Float64Array(hits.length), fields = new Uint8Array(hits.length);
    hits.forEach(function (hit, i) {
      refs[i] = +hit.ref; scores[i] = hit.score;
      var bits = 0, metadata = hit.matchData.metadata;
      Object.keys(metadata).forEach(function (term) {
        Object.keys(metadata[term]).forEach(function (field) { bits |= FIELD_BITS[field] || 0; });
      });
      fields[i] = bits;
    });
    return { refs: refs, scores: scores, fields: fields };
  }

  /* What hitsOf gets from lunr.Index.query, computed here from the postings' typed arrays: the same
   * papers, scores (to the last bit) and order, without lunr's objects for every matching paper
   * (a set of its refs, match data, a field vector and a result each: a broad word such as "learning"
   * matches most papers, and lunr's search took most of its question's time). It follows lunr 2.3.9
   * Index.query for the queries typedHits asks (optional clauses over every field):
   * - each clause's terms (the pipeline's, or the clause's own) are expanded through the token set
   *   as lunr expands them, in lunr's order;
   * - the query vector, the same for every field, sums each expanded term's boosts in clause order;
   * - a paper's field score is the dot product of that vector with the field's weights (summed in
   *   term-number order), over the vector's magnitude; a paper's score sums its field scores in the
   *   order its fields were first matched (clauses, expanded terms, fields, papers ascending), and
   *   papers are in that order of first match, then stably sorted by score, highest first.
   * The Node test of the browser contract compares both with lunr.py's, and hitsOf's with these. */
  function scoredHits(state, index, build, word) {
    var start = clock(), hits;
    try { hits = lunrScored(state, index, build); } catch (error) { hits = none(); } // as hitsOf: no hits
    state.timing.push(["word " + word + " scored (" + hits.refs.length + " papers)", start, clock()]);
    return hits;
  }

  function lunrScored(state, index, build) {
    var lunr = scope.lunr, FIELD_BITS = fieldBits(state), fields = index.fields, nf = fields.length;
    var query = new lunr.Query(fields);
    build(query);
    // (a paper's field, its sums and its place among the hits in arrays of every paper: a broad word
    // matches most of them, and arrays cost a fraction of maps there)
    var boosts = new Map(), postings = new Map(), firstDoc = [], firstField = [], cached = new Set();
    var fieldSeen = new Uint8Array(index.papers * nf);
    query.clauses.forEach(function (clause) {
      var terms = clause.usePipeline ? index.pipeline.runString(clause.term, { fields: clause.fields }) : [clause.term];
      terms.forEach(function (term) {
        clause.term = term;
        var expanded = index.tokenSet.intersect(lunr.TokenSet.fromClause(clause)).toArray();
        expanded.forEach(function (expandedTerm) {
          var posting = index.posting(expandedTerm), number = posting._index;
          boosts.set(number, boosts.has(number) ? boosts.get(number) + clause.boost : clause.boost);
          postings.set(number, posting);
          clause.fields.forEach(function (field) {
            var f = fields.indexOf(field), key = expandedTerm + "/" + field;
            if (cached.has(key)) return;
            cached.add(key);
            var papers = posting._papers[f];
            for (var i = 0; i < papers.length; i++) {
              var ref = papers[i] * nf + f;
              if (!fieldSeen[ref]) { fieldSeen[ref] = 1; firstDoc.push(papers[i]); firstField.push(f); }
            }
          });
        });
      });
    });
    if (!firstDoc.length) return none();
    var numbers = Array.from(boosts.keys()).sort(function (a, b) { return a - b; });
    var squares = 0;
    numbers.forEach(function (number) { var v = boosts.get(number); squares += v * v; });
    var magnitude = Math.sqrt(squares), dots = [];
    for (var f = 0; f < nf; f++) dots.push(new Float64Array(index.papers));
    numbers.forEach(function (number) {
      var posting = postings.get(number), boost = boosts.get(number);
      for (var g = 0; g < nf; g++) {
        var papers = posting._papers[g], weights = posting._weights[g], dot = dots[g];
        for (var i = 0; i < papers.length; i++) dot[papers[i]] += boost * weights[i];
      }
    });
    // what the weights not yet known (a common term's, makeExact) may add to a paper's score at most
    var extra = null;
    numbers.forEach(function (number) {
      var posting = postings.get(number), boost = boosts.get(number);
      for (var g = 0; g < nf; g++) {
        var unknown = posting._unknown && posting._unknown[g];
        if (!unknown) continue;
        if (!extra) extra = new Float64Array(index.papers);
        var papers = posting._papers[g];
        for (var i = 0; i < papers.length; i++) if (unknown[i]) extra[papers[i]] += boost * posting._bound[g] / magnitude;
      }
    });
    var at = new Int32Array(index.papers).fill(-1), refs = [], scores = [], bits = [];
    for (var k = 0; k < firstDoc.length; k++) {
      var paper = firstDoc[k], field = firstField[k], score = dots[field][paper] / magnitude || 0, place = at[paper];
      if (place < 0) { at[paper] = refs.length; refs.push(paper); scores.push(score); bits.push(FIELD_BITS[fields[field]] || 0); }
      else { scores[place] += score; bits[place] |= FIELD_BITS[fields[field]] || 0; }
    }
    var order = refs.map(function (_, i) { return i; }).sort(function (a, b) { return scores[b] - scores[a]; });
    var out = { refs: new Int32Array(order.length), scores: new Float64Array(order.length), fields: new Uint8Array(order.length) };
    order.forEach(function (i, j) { out.refs[j] = refs[i]; out.scores[j] = scores[i]; out.fields[j] = bits[i]; });
    if (extra) {
      out.bounds = new Float64Array(order.length);
      for (var j = 0; j < order.length; j++) out.bounds[j] = extra[out.refs[j]];
    }
    return out;
  }

  function none() { return { refs: new Int32Array(0), scores: new Float64Array(0), fields: new Uint8Array(0) }; }

  // a promise of the word's hits as typed (see hitsOf), loading the shards it needs
  function typedHits(state, word, prefix) {
    var lunr = scope.lunr;
    return wordShards(state, word, prefix).then(function (keys) { return shardsIndex(state, keys); }).then(function (index) {
      return (state.lunrQuery ? hitsOf : scoredHits)(state, index, function (q) {
        q.term(word, { boost: 1 });
        if (prefix && word.length >= PREFIX_MIN) q.term(word, { usePipeline: false, wildcard: lunr.Query.wildcard.TRAILING, boost: 0.3 });
      }, word);
    });
  }

  /* The word folded (fold: "weiß" -> "weiss", "josé" -> "jose"), where that is another word: the
   * build indexes authors' names folded too (search.py _paper_terms), so "Weiß" finds "Weiss" as
   * "Weiss" finds "Weiß". Its terms may be in another shard ("émile" -> "emile"). */
  function foldedWord(word) {
    var core = scope.papersite.core, words = core.queryWords(core.fold(word));
    return words.length === 1 && words[0] !== word && !isStopWord(words[0]) ? words[0] : null;
  }

  // both words' hits as one: a paper either holds once, with its better score and the fields of both
  function eitherHits(a, b) {
    var at = new Map(), refs = [], scores = [], fields = [], bounds = [];
    [a, b].forEach(function (hits) {
      for (var i = 0; i < hits.refs.length; i++) {
        var k = at.get(hits.refs[i]), bound = hits.bounds ? hits.bounds[i] : 0;
        if (k === undefined) { at.set(hits.refs[i], refs.length); refs.push(hits.refs[i]); scores.push(hits.scores[i]); fields.push(hits.fields[i]); bounds.push(bound); }
        else { scores[k] = Math.max(scores[k], hits.scores[i]); fields[k] |= hits.fields[i]; bounds[k] = Math.max(bounds[k], bound); }
      }
    });
    var both = { refs: Int32Array.from(refs), scores: Float64Array.from(scores), fields: Uint8Array.from(fields) };
    if (a.bounds || b.bounds) both.bounds = Float64Array.from(bounds);
    return both;
  }

  // a promise of the word's hits (as typed, or folded), loading the shards it needs
  function searchWord(state, word, prefix) {
    var stop = !word || isStopWord(word), folded = stop ? null : foldedWord(word);
    var found = stop ? Promise.resolve(none()) : typedHits(state, word, prefix);
    if (folded) {
      found = Promise.all([found, typedHits(state, folded, prefix)]).then(function (got) { return eitherHits(got[0], got[1]); });
    }
    return found.then(function (hits) { hits.stop = stop; return hits; });
  }

  // a promise of the word's hits at one edit (nearShards: where those may be)
  function searchNear(state, word) {
    if (!word || word.length < FUZZY_MIN || isStopWord(word)) return Promise.resolve(none());
    return nearShards(state, word).then(function (keys) { return shardsIndex(state, keys); }).then(function (index) {
      return hitsOf(state, index, function (q) { q.term(word, { editDistance: 1, boost: 0.1 }); });
    });
  }

  function withPhrase(state, all, phrase) {
    if (!all) return null;
    if (!state.normal) state.normal = all.map(normal);
    var needle = normal(phrase).replace(/ $/, ""); // the last word may go on: "diffusion model" finds "diffusion models"
    var found = [];
    for (var i = 0; i < state.normal.length; i++) if (state.normal[i].indexOf(needle) >= 0) found.push(i);
    return Int32Array.from(found);
  }

  // a message -> a promise of [answer, transferable buffers]
  function answer(state, message) {
    if (message.schema) state.schema = message.schema;
    if (message.type === "texts") {
      return someTexts(state, message.refs || []).then(function (picked) {
        return [{ type: "texts", id: message.id, texts: picked }, []];
      });
    }
    if (message.type === "exact") { // the same query again, the given papers' unknown weights read from their texts first
      return makeExact(state, message.refs || []).then(function () {
        return answer(state, Object.assign({}, message, { type: "query" }));
      });
    }
    var words = message.words || [], phrases = message.phrases || [];
    var perWord = Promise.all(words.map(function (word, i) {
      return message.type === "near" ? searchNear(state, word) : searchWord(state, word, message.prefix && i === words.length - 1);
    }));
    var phraseHits = phrases.length ? texts(state).then(function (all) {
      return phrases.map(function (p) { return withPhrase(state, all, p); });
    }) : Promise.resolve([]);
    return Promise.all([perWord, phraseHits]).then(function (got) {
      var buffers = [];
      got[0].forEach(function (f) { buffers.push(f.refs.buffer, f.scores.buffer, f.fields.buffer); if (f.bounds) buffers.push(f.bounds.buffer); });
      got[1].forEach(function (p) { if (p) buffers.push(p.buffer); });
      var timing = state.timing;
      state.timing = [];
      return [{ type: "hits", id: message.id, words: got[0], phrases: got[1], timing: timing }, buffers];
    });
  }

  // a query being typed: load the shards its words need before the question comes (the last
  // word is being typed: as a prefix, unless prefix is false); with no words yet (the search box was
  // focused), the manifest
  function warm(state, words, prefix) {
    starts(state).catch(function () { /* the question reports it */ }); // the manifest: asked on focus, before a word
    (words || []).forEach(function (word, i) {
      if (!word || isStopWord(word)) return;
      // (a shard that fails to load fails the question that needs it, not this)
      wordShards(state, word, i === words.length - 1 && prefix !== false).then(function (keys) {
        keys.forEach(function (key) { shardData(state, key).catch(function () { /* the question reports it */ }); });
      }).catch(function () { /* the question reports it */ });
    });
  }

  var inWorker = typeof scope.importScripts === "function" && typeof scope.document === "undefined";
  if (!inWorker) {
    scope.papersiteIndex = {
      open: open, normal: normal, warm: warm,
      answer: function (state, message) { return answer(state, message).then(function (out) { return out[0]; }); }
    };
    return;
  }

  var state = null;
  // {type: "scripts", urls} (lunr.js, papersite-core.js) first, then {type: "open", shards, texts, chunks}, then
  // questions (papersite-engine.js sends one at a time)
  scope.onmessage = function (event) {
    var message = event.data || {};
    if (message.type === "scripts") {
      try { scope.importScripts.apply(scope, message.urls); } catch (error) { scope.postMessage({ type: "error", message: String(error) }); }
    } else if (message.type === "open") {
      state = open(message.shards, message.texts || null, message.chunks || null);
      scope.postMessage({ type: "ready" });
    } else if (message.type === "warm") {
      warm(state, message.words, message.prefix);
    } else {
      answer(state, message).then(function (out) {
        scope.postMessage(out[0], out[1]);
      }, function (error) { scope.postMessage({ type: "error", id: message.id, message: String(error) }); });
    }
  };
})(self);

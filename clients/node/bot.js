#!/usr/bin/env node
// A Parlour bot in JavaScript: proof that any language with gRPC can play.
//
// It loads the same .proto files as the server (proto/ and the vendored google/api protos), connects to
// BotService.Connect, says Hello with its name and key, and answers every Turn with a random legal
// command from the view. It reconnects when the stream drops and exits after --games games have ended.
// --server takes several replicas (host:port,host:port): the bot connects through gRPC's round_robin
// policy, so a reconnection goes to another replica, and a turn seen again is answered with the same move
// and command id (never applied twice).
//
// With --ladder LADDER_ID (repeatable) it joins that ladder after each connection and keeps getting its
// games while connected.
//
// Usage: node bot.js --server localhost:50051[,localhost:50052] --name node-bot --key <16+ chars> [--games N]
//        [--ladder ID]... [--tls] [--ca-file PEM] [--api-key KEY]
// (--tls connects over TLS trusting the system's certificates, --ca-file those of a PEM file. --api-key, or
// PARLOUR_API_KEY, is sent as the metadata entry x-parlour-api-key: a server run with --require-api-key
// registers a new bot name only for a caller with an API key its admin issued.)
'use strict';

const path = require('node:path');
const crypto = require('node:crypto');
const dns = require('node:dns');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

// The .proto files: bundled in the package by `npm pack` (see prepack.js), else the repository's.
const ROOT = path.resolve(__dirname, '..', '..');
const BUNDLED = path.join(__dirname, 'proto');
const INCLUDE_DIRS = require('node:fs').existsSync(BUNDLED)
  ? [BUNDLED]
  : [path.join(ROOT, 'proto'), path.join(ROOT, 'third_party', 'googleapis')];

function parseArgs(argv) {
  const args = { server: process.env.PARLOUR_SERVER || 'localhost:50051', games: 0, ladders: [] };
  for (let i = 2; i < argv.length; i += 1) {
    const name = argv[i].replace(/^--/, '');
    if (name === 'tls') {
      args.tls = true;
    } else if (name === 'ladder') {
      args.ladders.push(argv[i + 1]);
      i += 1;
    } else {
      args[name] = argv[i + 1];
      i += 1;
    }
  }
  args['ca-file'] = args['ca-file'] || process.env.PARLOUR_CA_FILE;
  args.tls = Boolean(args.tls || args['ca-file'] || process.env.PARLOUR_TLS === '1');
  args.key = args.key || process.env.PARLOUR_BOT_KEY;
  args['api-key'] = (args['api-key'] || process.env.PARLOUR_API_KEY || '').trim();
  args.games = Number(args.games || 0);
  if (!args.name || !args.key) {
    console.error(
      'usage: node bot.js --server HOST:PORT --name NAME --key KEY [--games N] [--ladder ID]... [--tls] [--ca-file PEM] '
        + '[--api-key KEY]',
    );
    process.exit(2);
  }
  return args;
}

// The BotService and TournamentService client classes.
function loadServices() {
  const files = ['parlour/v1/bot_service.proto', 'parlour/v1/tournament_service.proto'];
  const definition = protoLoader.loadSync(files, {
    includeDirs: INCLUDE_DIRS,
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const v1 = grpc.loadPackageDefinition(definition).parlour.v1;
  return { BotService: v1.BotService, TournamentService: v1.TournamentService };
}

// Registers the bot in each ladder of --ladder (again after every connection: registering is idempotent).
function joinLadders(TournamentService, args, channel) {
  for (const ladder of args.ladders) {
    const client = new TournamentService(channel.target, credentials(args), channel.options);
    const request = { tournament_id: ladder, bot_name: args.name, bot_key: args.key };
    client.RegisterBot(request, metadataFor(args), (error) => {
      client.close();
      if (error) {
        console.error(`node bot: cannot join ladder ${ladder}: ${error.details}.${hintFor(error)}`);
        process.exit(1);
      }
    });
  }
}

function credentials(args) {
  if (!args.tls) return grpc.credentials.createInsecure();
  const roots = args['ca-file'] ? require('node:fs').readFileSync(args['ca-file']) : null;
  return grpc.credentials.createSsl(roots);
}

// The gRPC target and channel options for one address, or for several replicas (round robin).
async function channelFor(server) {
  const addresses = server.split(',').map((a) => a.trim()).filter((a) => a);
  if (addresses.length === 1) return { target: addresses[0], options: {} };
  const resolved = await Promise.all(
    addresses.map(async (address) => {
      const at = address.lastIndexOf(':');
      const { address: ip } = await dns.promises.lookup(address.slice(0, at), { family: 4 });
      return `${ip}:${address.slice(at + 1)}`;
    }),
  );
  const config = JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] });
  return { target: `ipv4:${resolved.join(',')}`, options: { 'grpc.service_config': config } };
}

// The call metadata: the API key, when there is one, as x-parlour-api-key.
function metadataFor(args) {
  const metadata = new grpc.Metadata();
  if (args['api-key']) metadata.set('x-parlour-api-key', args['api-key']);
  return metadata;
}

// What to do about a refusal that --api-key fixes (reason from the trailing metadata), else ''.
function hintFor(error) {
  const reason = (error.metadata && error.metadata.get('parlour-error-reason')[0]) || '';
  if (reason === 'auth/missing_api_key') {
    return ' Give the API key the server\'s admin issued you with --api-key KEY or PARLOUR_API_KEY.';
  }
  if (reason === 'auth/bad_api_key') {
    return ' The key given with --api-key (or PARLOUR_API_KEY) is not one this server knows: ask its admin for a new one.';
  }
  return '';
}

// The move for a turn: the one sent before for the same game, seat and version, or a new random one.
function moveFor(turn, state) {
  const key = `${turn.game_id}|${turn.seat}|${turn.view.version}`;
  let move = state.sent.get(key);
  if (!move) {
    const legal = turn.view.legal_commands;
    move = {
      game_id: turn.game_id,
      seat: turn.seat,
      command: legal[crypto.randomInt(legal.length)],
      expected_version: turn.view.version,
      command_id: crypto.randomUUID(),
    };
    for (const old of state.sent.keys()) {
      if (old.startsWith(`${turn.game_id}|${turn.seat}|`)) state.sent.delete(old);
    }
    state.sent.set(key, move);
  }
  return move;
}

function connect({ BotService, TournamentService }, args, state, channel) {
  return new Promise((resolve) => {
    const client = new BotService(channel.target, credentials(args), channel.options);
    const call = client.Connect(metadataFor(args));
    let closed = false;
    const finish = () => {
      if (closed) return;
      closed = true;
      call.end();
      client.close();
      resolve();
    };
    call.on('data', (message) => {
      if (message.welcome) {
        joinLadders(TournamentService, args, channel);
      } else if (message.turn) {
        call.write({ move: moveFor(message.turn, state) });
        state.moves += 1;
      } else if (message.game_ended) {
        state.ended.add(message.game_ended.game_id);
        for (const old of state.sent.keys()) {
          if (old.startsWith(`${message.game_ended.game_id}|`)) state.sent.delete(old);
        }
        if (args.games && state.ended.size >= args.games) finish();
      } else if (message.move_rejected) {
        state.rejected += 1;
      } else if (message.notice) {
        console.error(`node bot: ${message.notice.reason}: ${message.notice.message}`);
      }
    });
    call.on('error', (error) => {
      const fatal = [grpc.status.PERMISSION_DENIED, grpc.status.INVALID_ARGUMENT, grpc.status.UNAUTHENTICATED];
      if (fatal.includes(error.code)) {
        console.error(`node bot refused: ${error.details}.${hintFor(error)}`);
        process.exit(1);
      }
      finish();
    });
    call.on('end', finish);
    call.write({ hello: { bot_name: args.name, bot_key: args.key, games: [] } });
  });
}

async function main() {
  const args = parseArgs(process.argv);
  const services = loadServices();
  const state = { ended: new Set(), moves: 0, rejected: 0, sent: new Map() };
  const channel = await channelFor(args.server);
  while (!args.games || state.ended.size < args.games) {
    await connect(services, args, state, channel);
    if (!args.games || state.ended.size < args.games) await new Promise((r) => setTimeout(r, 200));
  }
  console.log(`node bot ${args.name}: ${state.ended.size} games ended, ${state.moves} moves, ${state.rejected} rejected`);
  process.exit(0);
}

main();

#!/usr/bin/env node
// A Parlour bot in JavaScript: proof that any language with gRPC can play.
//
// It loads the same .proto files as the server (proto/ and the vendored google/api protos), connects to
// BotService.Connect, says Hello with its name and key, and answers every Turn with a random legal
// command from the view. It reconnects when the stream drops and exits after --games games have ended.
//
// Usage: node bot.js --server localhost:50051 --name node-bot --key <16+ chars> [--games N] [--tls] [--ca-file PEM]
// (--tls connects over TLS trusting the system's certificates, --ca-file those of a PEM file.)
'use strict';

const path = require('node:path');
const crypto = require('node:crypto');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

// The .proto files: bundled in the package by `npm pack` (see prepack.js), else the repository's.
const ROOT = path.resolve(__dirname, '..', '..');
const BUNDLED = path.join(__dirname, 'proto');
const INCLUDE_DIRS = require('node:fs').existsSync(BUNDLED)
  ? [BUNDLED]
  : [path.join(ROOT, 'proto'), path.join(ROOT, 'third_party', 'googleapis')];

function parseArgs(argv) {
  const args = { server: process.env.PARLOUR_SERVER || 'localhost:50051', games: 0 };
  for (let i = 2; i < argv.length; i += 1) {
    const name = argv[i].replace(/^--/, '');
    if (name === 'tls') {
      args.tls = true;
    } else {
      args[name] = argv[i + 1];
      i += 1;
    }
  }
  args['ca-file'] = args['ca-file'] || process.env.PARLOUR_CA_FILE;
  args.tls = Boolean(args.tls || args['ca-file'] || process.env.PARLOUR_TLS === '1');
  args.key = args.key || process.env.PARLOUR_BOT_KEY;
  args.games = Number(args.games || 0);
  if (!args.name || !args.key) {
    console.error('usage: node bot.js --server HOST:PORT --name NAME --key KEY [--games N] [--tls] [--ca-file PEM]');
    process.exit(2);
  }
  return args;
}

function loadService() {
  const definition = protoLoader.loadSync('parlour/v1/bot_service.proto', {
    includeDirs: INCLUDE_DIRS,
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).parlour.v1.BotService;
}

function credentials(args) {
  if (!args.tls) return grpc.credentials.createInsecure();
  const roots = args['ca-file'] ? require('node:fs').readFileSync(args['ca-file']) : null;
  return grpc.credentials.createSsl(roots);
}

function connect(BotService, args, state) {
  return new Promise((resolve) => {
    const client = new BotService(args.server, credentials(args));
    const call = client.Connect();
    let closed = false;
    const finish = () => {
      if (closed) return;
      closed = true;
      call.end();
      client.close();
      resolve();
    };
    call.on('data', (message) => {
      if (message.turn) {
        const turn = message.turn;
        const legal = turn.view.legal_commands;
        const command = legal[crypto.randomInt(legal.length)];
        call.write({
          move: {
            game_id: turn.game_id,
            seat: turn.seat,
            command,
            expected_version: turn.view.version,
            command_id: crypto.randomUUID(),
          },
        });
        state.moves += 1;
      } else if (message.game_ended) {
        state.ended.add(message.game_ended.game_id);
        if (args.games && state.ended.size >= args.games) finish();
      } else if (message.move_rejected) {
        state.rejected += 1;
      }
    });
    call.on('error', (error) => {
      if (error.code === grpc.status.PERMISSION_DENIED || error.code === grpc.status.INVALID_ARGUMENT) {
        console.error(`node bot refused: ${error.details}`);
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
  const BotService = loadService();
  const state = { ended: new Set(), moves: 0, rejected: 0 };
  while (!args.games || state.ended.size < args.games) {
    await connect(BotService, args, state);
    if (!args.games || state.ended.size < args.games) await new Promise((r) => setTimeout(r, 200));
  }
  console.log(`node bot ${args.name}: ${state.ended.size} games ended, ${state.moves} moves, ${state.rejected} rejected`);
  process.exit(0);
}

main();

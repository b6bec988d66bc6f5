import { measure } from './measure.js';
import { startMcpPeer } from './mcp-peer.js';

const peer = await startMcpPeer();
console.log(await peer.callGetOrder());
const result = await measure('mcp callTool get_order', () => peer.callGetOrder());
console.log(result.name, result.ops_per_second.toFixed(0), 'ops/s', result.us_per_op.toFixed(1), 'us/op');
await peer.close();

// The peer doing less: an MCP in-memory client/server pair calling `get_order`, a tool with an
// outputSchema, after listTools() so the client validates structuredContent (issue 8, item 2).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export interface McpPeer {
  callGetOrder(): Promise<unknown>;
  close(): Promise<void>;
}

export async function startMcpPeer(): Promise<McpPeer> {
  const server = new McpServer({ name: 'orders', version: '1.0.0' });
  server.registerTool(
    'get_order',
    {
      description: 'Read one order of the caller.',
      inputSchema: { order_id: z.string().min(1).max(64) },
      outputSchema: {
        order_ref: z.string(),
        status: z.enum(['paid', 'pending', 'refunded']),
        amount: z.number().int(),
        unit: z.enum(['CREDIT_A', 'CREDIT_B']),
      },
    },
    ({ order_id }) => {
      const structuredContent = { order_ref: order_id, status: 'paid' as const, amount: 6000, unit: 'CREDIT_A' as const };
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  await client.listTools();
  return {
    callGetOrder: () => client.callTool({ name: 'get_order', arguments: { order_id: 'ORDER-C7' } }),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
